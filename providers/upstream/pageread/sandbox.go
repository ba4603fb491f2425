package pageread

import (
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox reads any public-looking URL (issue 18): its resolver gives every public-looking
// host name a public address derived from the name (no DNS is performed, and the address checks
// still run on it), and its reader answers a page made from the URL when it has no recording.
// The reserved miss is a host that does not resolve: any name containing sandbox-not-found, a
// single-label name, or a name under a special-use domain (.invalid, .test, .localhost, .local,
// .internal, .example), as live DNS answers them. Live resolution is untouched.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/*", Generate: generatePage})
}

// specialUse are the special-use domains no public host lives under (RFC 6761, RFC 6762).
var specialUse = []string{".invalid", ".test", ".localhost", ".local", ".internal", ".example", ".arpa", ".home.arpa"}

// sandboxLookup is the test-mode resolver: recorded hosts at their addresses, other public-looking
// names at an address of 93.184.0.0/16 chosen by the name's hash, the reserved misses nowhere.
func sandboxLookup(host string) ([]netip.Addr, error) {
	if addrs, ok := sandboxHosts[host]; ok {
		return addrs, nil
	}
	notFound := &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	if !strings.Contains(host, ".") || providers.IsSandboxMiss(host) {
		return nil, notFound
	}
	for _, s := range specialUse {
		if strings.HasSuffix(host, s) {
			return nil, notFound
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(host))
	sum := h.Sum32()
	return []netip.Addr{netip.AddrFrom4([4]byte{93, 184, byte(sum >> 8), byte(sum%254 + 1)})}, nil
}

// generatePage answers a reader call for a URL without a recording: a page titled after the URL's
// last path segment (or its host), whose text names the page and its site.
func generatePage(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if status == http.StatusOK {
		return fixture, status
	}
	raw := strings.TrimPrefix(r.URL.Path, "/")
	if r.URL.RawQuery != "" {
		raw += "?" + r.URL.RawQuery
	}
	target, err := url.Parse(raw)
	if err != nil || target.Host == "" {
		return fixture, status
	}
	title := pageTitle(target)
	rnd := providers.SandboxRand(r)
	var paras []string
	for i := 0; i < 3+rnd.IntN(4); i++ {
		paras = append(paras, fmt.Sprintf("%s, as published on %s: paragraph %d of this sandbox page. "+
			"Test keys read a page generated from its URL; a live key reads the page itself.", title, target.Host, i+1))
	}
	content := "# " + title + "\n\n" + strings.Join(paras, "\n\n") +
		fmt.Sprintf("\n\n[More from %s](%s://%s/)", target.Host, target.Scheme, target.Host)
	words := 0
	for _, p := range paras {
		words += len(strings.Fields(p))
	}
	doc := map[string]any{
		"code": 200, "status": 20000,
		"data": map[string]any{
			"title": title, "description": title + " on " + target.Host, "url": target.String(), "content": content,
			"metadata": map[string]any{"viewport": "width=device-width, initial-scale=1"}, "external": map[string]any{},
			"usage": map[string]any{"tokens": words * 4 / 3},
		},
		"meta": map[string]any{"usage": map[string]any{"tokens": words * 4 / 3}},
	}
	return providers.JSONBytes(doc), http.StatusOK
}

func pageTitle(u *url.URL) string {
	seg := path.Base(strings.TrimSuffix(u.Path, "/"))
	if seg == "." || seg == "/" || seg == "" {
		return u.Host
	}
	seg = strings.TrimSuffix(seg, path.Ext(seg))
	seg, _ = url.PathUnescape(seg)
	seg = strings.NewReplacer("_", " ", "-", " ", "+", " ").Replace(seg)
	return providers.TitleCase(seg)
}
