package npm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Patterns of the spec (sections 4.8 and 4.13), shared by the schemas and by the checks of names
// that come back from the registry (a search hit's name is re-checked before it becomes a path).
const (
	packagePattern = `^(?:@[a-zA-Z0-9_~][a-zA-Z0-9._~-]*/)?[a-zA-Z0-9_~][a-zA-Z0-9._~-]*$`
	versionPattern = `^[a-zA-Z0-9][a-zA-Z0-9._+~-]*$`
	maxPackageLen  = 214
)

var packageRe = regexp.MustCompile(packagePattern)

// validPackageName tells whether a name fits the spec's package pattern and length.
func validPackageName(name string) bool {
	return name != "" && len(name) <= maxPackageLen && packageRe.MatchString(name)
}

// documentPath is the registry path of a package document: "/name", or "/@scope%2Fname" for a
// scoped package (the registry wants the scope's slash percent-encoded in one path segment).
// Every character the package pattern allows other than "/" is left as it is by PathEscape.
func documentPath(name string) string {
	return "/" + url.PathEscape(name)
}

// manifestPath is the registry path of one version manifest: "/name/{version or dist-tag}".
func manifestPath(name, version string) string {
	return documentPath(name) + "/" + url.PathEscape(version)
}

// hintSpecificVersion is added to every oversize metadata error (spec 4.8 caveat and section 8).
const hintSpecificVersion = "The package's full metadata document is larger than the 8 MiB limit: request a specific " +
	"version (for example \"latest\" or an exact version) with jspkg.package to get one manifest instead."

// oversize adds the "request a specific version" hint to the client's size-limit error. The shared
// client answers a response body over the provider's MaxBody (8 MiB) with provider_error carrying
// the upstream's 2xx status and no body; no other failure has a 2xx status.
func oversize(err error) error {
	e, ok := providers.AsError(err)
	if !ok || e.Code != providers.CodeProviderError || e.UpstreamStatus < 200 || e.UpstreamStatus > 299 {
		return err
	}
	w := *e
	w.Message = e.Message + "; the package's metadata document is over the 8 MiB limit"
	w.Hint = hintSpecificVersion
	w.Retryable = ptr(false)
	return &w
}

func ptr[T any](v T) *T { return &v }

// registryError reads the registry's error bodies: {"error": "Not found"} for a missing package,
// a bare JSON string such as "version not found: 9.9.9" for a missing version or dist-tag (older
// answers wrap it as {"error": "version not found: 9.9.9"}), {"error": "..."} from the download
// counts API, and {"message": "..."} or {"code": ..., "message": ...} from other refusals.
func registryError(body []byte) string {
	body = bytes.TrimSpace(body)
	var s string
	if json.Unmarshal(body, &s) == nil {
		return strings.TrimSpace(s)
	}
	var m struct {
		Error   lenient.Str `json:"error"`
		Message lenient.Str `json:"message"`
		Reason  lenient.Str `json:"reason"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	for _, v := range []lenient.Str{m.Error, m.Message, m.Reason} {
		if v != "" {
			return string(v)
		}
	}
	return ""
}

// upstreamStatus returns the HTTP status of an upstream refusal and its error text.
func upstreamStatus(err error) (int, string) {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return 0, ""
	}
	return e.UpstreamStatus, registryError(e.Body)
}

// documentError maps a failed package document or manifest request of jspkg.package: 404 becomes
// invalid_request at /version when the registry says the version (or dist-tag) is unknown, and at
// /package otherwise; an oversize document gets the "request a specific version" hint.
func documentError(err error, name, version string) error {
	status, msg := upstreamStatus(err)
	if status == http.StatusNotFound {
		if version != "" && strings.Contains(strings.ToLower(msg), "version not found") {
			return providers.InvalidField("/version", fmt.Sprintf("no such version or dist-tag of %s: %q", name, version)).
				WithHint("Omit version to get the full document with every published version and the dist-tags.")
		}
		return providers.InvalidField("/package", "no such package: "+name).
			WithHint("Check the spelling and the scope (scoped names look like @scope/name); jspkg.search finds packages by keywords.")
	}
	return oversize(err)
}

// decodeObject decodes a JSON object leniently: anything else is nil.
func decodeObject(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// str reads a JSON string, trimmed; anything else is "".
func str(raw json.RawMessage) string {
	var s lenient.Str
	_ = json.Unmarshal(raw, &s)
	return string(s)
}

// stringOrObject reads a value the spec types "string or object" (license, repository): a
// non-blank string, or a non-empty object; anything else is absent.
func stringOrObject(raw json.RawMessage) (any, bool) {
	if s := str(raw); s != "" {
		return s, true
	}
	var m map[string]any
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil, false
	}
	return m, true
}

// objects reads an array of objects (maintainers), skipping elements that are not objects; an
// absent array, or one without any object, is absent.
func objects(raw json.RawMessage) ([]map[string]any, bool) {
	var list lenient.List[lenient.Obj[map[string]any]]
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	out := make([]map[string]any, 0, len(list))
	for _, o := range list {
		if o.V != nil && len(*o.V) > 0 {
			out = append(out, *o.V)
		}
	}
	return out, len(out) > 0
}

// stringMap reads an object whose values are strings (dependencies, dist-tags, links), keeping
// the string members; present is false when raw is not an object at all.
func stringMap(raw json.RawMessage) (map[string]string, bool) {
	m := decodeObject(raw)
	if m == nil {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s := str(v); s != "" {
			out[k] = s
		}
	}
	return out, true
}

// webURL returns s when it is an absolute http(s) URL.
func webURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// repositoryURL turns a package.json repository (a string or {type, url}) into a browsable URL:
// "git+https://host/x/y.git" and "git://host/x/y.git" become "https://host/x/y",
// "git@host:x/y.git" becomes "https://host/x/y" and the "github:x/y" and bare "x/y" shorthands
// become GitHub URLs (npm's own shorthand rules). Anything else is "".
func repositoryURL(repo any) string {
	var s string
	switch r := repo.(type) {
	case string:
		s = r
	case map[string]any:
		s, _ = r["url"].(string)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(s, "github:"):
		s = "https://github.com/" + strings.TrimPrefix(s, "github:")
	case strings.HasPrefix(s, "gitlab:"):
		s = "https://gitlab.com/" + strings.TrimPrefix(s, "gitlab:")
	case strings.HasPrefix(s, "bitbucket:"):
		s = "https://bitbucket.org/" + strings.TrimPrefix(s, "bitbucket:")
	case strings.HasPrefix(s, "git@"):
		if host, path, ok := strings.Cut(strings.TrimPrefix(s, "git@"), ":"); ok {
			s = "https://" + host + "/" + path
		}
	case !strings.Contains(s, ":") && strings.Count(s, "/") == 1:
		s = "https://github.com/" + s
	}
	s = strings.TrimPrefix(s, "git+")
	if strings.HasPrefix(s, "git://") {
		s = "https://" + strings.TrimPrefix(s, "git://")
	}
	if strings.HasPrefix(s, "ssh://git@") {
		s = "https://" + strings.TrimPrefix(s, "ssh://git@")
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	return webURL(s)
}
