package pageread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/idna"

	"github.com/capgate/capgate/providers"
)

// maxRedirects is the number of redirects the pre-flight follows before it gives up.
const maxRedirects = 5

// Resolver looks up the addresses of a host name; *net.Resolver satisfies it. Tests inject a
// map-backed resolver so that a name can resolve to 127.0.0.1 without real DNS.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guard is the SSRF guard of web.read: it decides which URLs and addresses may be fetched on a
// caller's behalf, and follows redirects itself through a dialer that refuses non-public
// addresses at connect time.
type guard struct {
	// resolver resolves host names in live mode.
	resolver Resolver
	// allowLoopbackForTests lets the pre-flight reach 127.0.0.0/8 and ::1, where httptest servers
	// listen. Only tests set it (through withGuard in the test files); production never does, and
	// nothing else is relaxed by it: private, link-local, CGNAT and metadata addresses stay refused.
	allowLoopbackForTests bool
	// dial connects to an address that already passed the checks; nil means a net.Dialer whose
	// Control hook re-checks the address of the socket itself. Tests point it at a test server.
	dial func(ctx context.Context, network, address string) (net.Conn, error)
	// tlsConfig is the pre-flight's TLS configuration; nil means the system roots.
	tlsConfig *tls.Config
}

// defaultGuard is the guard every call uses. Tests swap it (never in parallel tests).
var defaultGuard = &guard{resolver: net.DefaultResolver}

// sandboxHosts is the resolver of test mode (cap_test_ keys): the sandbox never performs real DNS,
// yet every host still goes through the same address checks. Addresses are the hosts' public ones.
var sandboxHosts = map[string][]netip.Addr{
	"example.com": {
		netip.MustParseAddr("93.184.215.14"),
		netip.MustParseAddr("2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
	},
	"en.wikipedia.org": {
		netip.MustParseAddr("208.80.154.224"),
		netip.MustParseAddr("2620:0:861:ed1a::1"),
	},
}

// blockedNames are host names refused whatever they resolve to.
var blockedNames = map[string]bool{
	"localhost":                  true,
	"metadata":                   true,
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// extraBlocked are special-purpose ranges providers.IsPublicAddr lets through that no public web
// page lives on (RFC 6890 and successors).
var extraBlocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"; 0.x.x.x reaches the local host on Linux
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255
	netip.MustParsePrefix("::/96"),           // IPv4-compatible IPv6 (::127.0.0.1)
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo: hides an arbitrary IPv4 address
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: the last 32 bits are an IPv4 address
	sixToFour = netip.MustParsePrefix("2002::/16")    // 6to4: bits 16..48 are an IPv4 address
)

// publicAddr is providers.IsPublicAddr plus the special-purpose ranges above, and the IPv4 address
// embedded in a NAT64 or 6to4 address must be public too.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !providers.IsPublicAddr(a) {
		return false
	}
	for _, p := range extraBlocked {
		if p.Contains(a) {
			return false
		}
	}
	if nat64.Contains(a) {
		b := a.As16()
		return publicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if sixToFour.Contains(a) {
		b := a.As16()
		return publicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return true
}

// allowed tells whether the guard lets a connection reach a.
func (g *guard) allowed(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if g.allowLoopbackForTests && a.IsLoopback() {
		return true
	}
	return publicAddr(a)
}

// target is a URL that passed the static checks, with its host normalized.
type target struct {
	URL  *url.URL
	Host string     // lower-case ASCII host name or address, without brackets or trailing dot
	Addr netip.Addr // the address when the host is a literal (a standard dotted quad, or IPv6)
}

// check applies every check that needs no network to a URL and returns the normalized target, or
// a message saying why the URL may not be read: scheme, user info, port, host syntax, blocked
// names, and literal addresses. The host is mapped with IDNA (UTS 46) first; the legacy IPv4
// forms (2130706433, 0x7f.1, 127.1: the same address as 127.0.0.1) are refused outright.
func (g *guard) check(raw string) (*target, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "the URL is not valid"
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, "only http and https URLs can be read"
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, "the URL has no host"
	}
	if u.User != nil {
		return nil, "the URL must not carry a user name or password"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, "the URL's port is not valid"
		}
	}
	t := &target{}
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(u.Hostname())
		if err != nil || !a.Is6() {
			return nil, "the URL's host is not a valid address"
		}
		if a.Zone() != "" {
			return nil, "the URL's host must not name a network interface"
		}
		if why := g.refusedAddr(a); why != "" {
			return nil, why
		}
		t.Addr, t.Host = a, a.String()
	} else {
		// UTS 46 mapping first, so every later check sees the host a browser or resolver would:
		// full-width digits and ideographic full stops (１２７。１) are 127.1, soft hyphens vanish.
		ascii, err := idna.Lookup.ToASCII(u.Hostname())
		ascii = strings.TrimSuffix(strings.ToLower(ascii), ".")
		if err != nil || ascii == "" {
			return nil, "the URL's host is not a valid host name"
		}
		if numericHost(ascii) {
			// Only the standard dotted quad is an address here; the legacy forms (127.1, 0177.0.0.1,
			// 0x7f.1, 2130706433 and their mixtures) are refused before any lookup, public or not.
			a, err := netip.ParseAddr(ascii)
			if err != nil || !a.Is4() {
				means := ""
				if legacy, ok := whatwgIPv4(ascii); ok {
					means = ", a legacy form of " + legacy.String() + ","
				}
				return nil, fmt.Sprintf("the URL's host %s%s is not a standard IPv4 address (write four decimal numbers, such as 93.184.215.14)", ascii, means)
			}
			if why := g.refusedAddr(a); why != "" {
				return nil, why
			}
			t.Addr, t.Host = a, a.String()
		} else {
			if blockedNames[ascii] || strings.HasSuffix(ascii, ".localhost") {
				return nil, fmt.Sprintf("the URL's host %s is a local or cloud metadata name", ascii)
			}
			if !strings.Contains(ascii, ".") {
				return nil, fmt.Sprintf("the URL's host %s is a single-label name, not a public web address", ascii)
			}
			t.Host = ascii
		}
	}
	out := *u
	out.Scheme = scheme
	out.Host = hostPort(t, u.Port())
	out.Fragment, out.RawFragment = "", ""
	t.URL = &out
	return t, ""
}

// refusedAddr says why a literal address may not be read, or "".
func (g *guard) refusedAddr(a netip.Addr) string {
	if !g.allowed(a) {
		return fmt.Sprintf("the URL's host %s is not a public address (loopback, private, link-local, shared, multicast, reserved and cloud metadata addresses are refused)", a)
	}
	return ""
}

func hostPort(t *target, port string) string {
	h := t.Host
	if t.Addr.Is6() {
		h = "[" + h + "]"
	}
	if port != "" {
		h += ":" + port
	}
	return h
}

// literalAddr parses a host that is an IP address: IPv6 (brackets already removed by Hostname)
// or IPv4 in any form the WHATWG URL parser accepts (1 to 4 parts, decimal, octal with a leading
// 0, or hexadecimal with 0x), because a reader running a browser reaches the same address.
func literalAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	return whatwgIPv4(host)
}

// numericHost reports whether the WHATWG parser would treat the host as an IPv4 address (its last
// label is a number); such a host that does not parse is invalid rather than a name.
func numericHost(host string) bool {
	labels := strings.Split(host, ".")
	last := labels[len(labels)-1]
	if last == "" && len(labels) > 1 {
		last = labels[len(labels)-2]
	}
	if last == "" {
		return false
	}
	if _, ok := ipv4Part(last); ok {
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func whatwgIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func ipv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}

// lookup returns the addresses of a host: the literal itself, the sandbox map in test mode, or
// the resolver in live mode.
func (g *guard) lookup(ctx context.Context, mode providers.Mode, host string) ([]netip.Addr, error) {
	if a, ok := literalAddr(host); ok {
		return []netip.Addr{a}, nil
	}
	if mode == providers.ModeTest {
		return sandboxLookup(host)
	}
	r := g.resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return r.LookupNetIP(ctx, "ip", host)
}

// refusedAddr is a host whose resolved address the guard refuses.
type refusedAddr struct {
	host string
	addr netip.Addr
}

func (r *refusedAddr) Error() string {
	return fmt.Sprintf("%s resolves to %s, which is not a public address", r.host, r.addr)
}

// resolve looks a host up and refuses it when any of its addresses is not public (an attacker
// controls the order in which addresses are tried, so one private address is enough to refuse).
func (g *guard) resolve(ctx context.Context, mode providers.Mode, host string) ([]netip.Addr, error) {
	addrs, err := g.lookup(ctx, mode, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	for _, a := range addrs {
		if !g.allowed(a) {
			return nil, &refusedAddr{host: host, addr: a.WithZone("").Unmap()}
		}
	}
	return addrs, nil
}

// resolveError turns a failed resolution of the requested URL's host into the error the caller
// sees: invalid_request at /url when the host is refused or does not exist.
func resolveError(ctx context.Context, host string, err error, mode providers.Mode) error {
	var ra *refusedAddr
	if errors.As(err, &ra) {
		return providers.InvalidField("/url", "the URL's host "+ra.Error()+"; only public web pages can be read")
	}
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		// Test mode answers its reserved misses exactly as live mode answers a name that does not resolve.
		return providers.InvalidField("/url", fmt.Sprintf("the URL's host %s does not resolve", host))
	}
	if ctx.Err() != nil || isTimeout(err) {
		return &providers.Error{Code: providers.CodeProviderTimeout, Message: fmt.Sprintf("resolving %s did not finish in time", host), Cause: err}
	}
	return &providers.Error{Code: providers.CodeProviderError, Message: fmt.Sprintf("the address of %s could not be looked up", host), Cause: err}
}

// dialContext is the pre-flight's only way onto the network: it resolves the host itself (so the
// address checked is the address dialled, which defeats DNS rebinding), refuses the connection
// when any address is not public, and dials the checked addresses in order.
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	addrs, err := g.resolve(ctx, providers.ModeLive, host)
	if err != nil {
		return nil, err
	}
	dial := g.dial
	if dial == nil {
		d := &net.Dialer{Timeout: 5 * time.Second, Control: g.control}
		dial = d.DialContext
	}
	var last error
	for _, a := range addrs {
		conn, err := dial(ctx, network, net.JoinHostPort(a.WithZone("").Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// control re-checks the address of the socket about to connect: the last word, whatever
// resolved it.
func (g *guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an address", address)
	}
	if !g.allowed(ap.Addr()) {
		return &refusedAddr{host: ap.Addr().String(), addr: ap.Addr()}
	}
	return nil
}

// redirectRefused is a redirect the pre-flight does not follow.
type redirectRefused struct{ reason string }

func (r *redirectRefused) Error() string { return r.reason }

// followResult is what the pre-flight found: the final URL and how many redirects led there.
type followResult struct {
	Final     *target
	Redirects int
}

// follow resolves the redirect chain of the URL itself before the reader is called: HEAD (GET
// when the server refuses HEAD), at most 5 redirects, every hop re-checked by CheckRedirect and
// every connection checked at dial time. The answer's body is never read.
func (g *guard) follow(ctx context.Context, start *target) (*followResult, error) {
	var tlsConf *tls.Config
	if g.tlsConfig != nil {
		tlsConf = g.tlsConfig.Clone()
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us and bypass the address checks
		DialContext:            g.dialContext,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    5 * time.Second,
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
	}
	defer tr.CloseIdleConnections()
	followed := 0
	base := 0
	client := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		followed = base + len(via)
		if followed > maxRedirects {
			return &redirectRefused{reason: fmt.Sprintf("the page redirected more than %d times", maxRedirects)}
		}
		if _, msg := g.check(req.URL.String()); msg != "" {
			return &redirectRefused{reason: "the page redirected to a URL that may not be read: " + msg}
		}
		req.Header.Set("User-Agent", preflightUA)
		return nil
	}}
	current := start.URL
	var res *http.Response
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, err := http.NewRequestWithContext(ctx, method, current.String(), nil)
		if err != nil {
			return nil, providers.InvalidField("/url", "the URL is not valid")
		}
		req.Header.Set("User-Agent", preflightUA)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
		res, err = client.Do(req)
		if err != nil {
			return nil, g.followError(ctx, err, followed)
		}
		res.Body.Close()
		current = res.Request.URL
		if res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != http.StatusNotImplemented {
			break
		}
		base = followed // the GET retry continues the same redirect budget
	}
	final, msg := g.check(current.String())
	if msg != "" {
		return nil, providers.Errorf(providers.CodeProviderError, "the page redirected to a URL that may not be read: %s", msg).WithRetryable(false)
	}
	return &followResult{Final: final, Redirects: followed}, nil
}

// preflightUA identifies the redirect check to the sites it touches.
const preflightUA = "capgate-webread/1 (redirect check)"

// followError maps a failed pre-flight. A refused address of the requested host itself is the
// caller's URL at fault (invalid_request at /url); one reached through a redirect is the page's
// doing (provider_error, not retryable).
func (g *guard) followError(ctx context.Context, err error, redirects int) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ra *refusedAddr
	if errors.As(err, &ra) {
		if redirects == 0 {
			return providers.InvalidField("/url", "the URL's host "+ra.Error()+"; only public web pages can be read")
		}
		return &providers.Error{Code: providers.CodeProviderError, Retryable: boolPtr(false), Cause: err,
			Message: "the page redirected to a host that " + strings.TrimPrefix(ra.Error(), ra.host+" ") + "; the redirect was refused"}
	}
	var rr *redirectRefused
	if errors.As(err, &rr) {
		return &providers.Error{Code: providers.CodeProviderError, Message: rr.reason, Retryable: boolPtr(false), Cause: err}
	}
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		if redirects == 0 {
			return providers.InvalidField("/url", fmt.Sprintf("the URL's host %s does not resolve", de.Name))
		}
		return &providers.Error{Code: providers.CodeProviderError, Retryable: boolPtr(false), Cause: err,
			Message: fmt.Sprintf("the page redirected to %s, which does not resolve", de.Name)}
	}
	if ctx.Err() != nil || isTimeout(err) {
		return &providers.Error{Code: providers.CodeProviderTimeout, Message: "the page did not answer in time", Cause: err}
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalid) {
		return &providers.Error{Code: providers.CodeProviderError, Message: "the page's TLS certificate could not be verified",
			Retryable: boolPtr(false), Cause: err}
	}
	return &providers.Error{Code: providers.CodeProviderError, Message: "the page could not be reached", Retryable: boolPtr(true), Cause: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func boolPtr(b bool) *bool { return &b }
