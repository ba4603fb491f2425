package gateway

// Origin and Host validation of /mcp (issue 32). The MCP Streamable HTTP transport requires a
// server to validate the Origin header of every request, against DNS rebinding: a web page whose
// name resolves to the gateway's address would otherwise drive /mcp from a browser with whatever
// credentials that browser holds for it. A request whose Origin (when present) or Host is not
// allowed is refused with 403 before anything else reads it.
//
// Always allowed: the public URL (GATEWAY_PUBLIC_URL: its origin and its host) and loopback
// (localhost, 127.0.0.1 and [::1] on any port, over http or https). Options.MCPAllowedOrigins
// and Options.MCPAllowedHosts add more; "*" allows any. A request without an Origin header is not
// a browser's cross-origin request and passes the origin check (agents and IDE hosts send none).

import (
	"net"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// originPolicy is the parsed allow-lists of /mcp.
type originPolicy struct {
	anyOrigin, anyHost bool
	origins            map[string]bool // scheme://host[:port], lower case
	hosts              map[string]bool // host[:port], lower case; a bare host allows any port
}

// newOriginPolicy builds the policy from the public URL and the configured extra entries.
func newOriginPolicy(publicURL string, origins, hosts []string) *originPolicy {
	p := &originPolicy{origins: map[string]bool{}, hosts: map[string]bool{}}
	if u, err := url.Parse(publicURL); err == nil && u.Host != "" {
		p.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
		p.hosts[strings.ToLower(u.Host)] = true
	}
	for _, o := range origins {
		o = strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
		switch o {
		case "":
		case "*":
			p.anyOrigin = true
		default:
			p.origins[o] = true
		}
	}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		switch h {
		case "":
		case "*":
			p.anyHost = true
		default:
			p.hosts[h] = true
		}
	}
	return p
}

// loopbackHost reports whether host (host[:port], IPv6 in brackets) names this machine.
func loopbackHost(hostport string) bool {
	h := hostport
	if sh, _, err := net.SplitHostPort(hostport); err == nil {
		h = sh
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	h = strings.ToLower(h)
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// hostAllowed: loopback, the public host, or a configured host (with or without its port).
func (p *originPolicy) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if p.anyHost || loopbackHost(host) || p.hosts[host] {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		return p.hosts[h]
	}
	return false
}

// originAllowed: an absent Origin, loopback, the public URL's origin or a configured one.
func (p *originPolicy) originAllowed(origin string) bool {
	if origin == "" || p.anyOrigin {
		return true
	}
	o := strings.ToLower(origin)
	if p.origins[o] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null", opaque or malformed origins are never allowed
	}
	return loopbackHost(u.Host)
}

// mcpOrigin refuses a /mcp request from an origin or to a host that is not allowed.
func (s *Server) mcpOrigin(c *fiber.Ctx) error {
	if !s.origins.hostAllowed(string(c.Request().Host())) {
		return &Error{Code: providers.CodeUnauthorized, Status: fiber.StatusForbidden,
			Message: "the Host header names a host this gateway does not serve /mcp for",
			Hint:    "connect to the gateway's public URL; an operator can allow more hosts with GATEWAY_MCP_ALLOWED_HOSTS"}
	}
	if !s.origins.originAllowed(c.Get(fiber.HeaderOrigin)) {
		return &Error{Code: providers.CodeUnauthorized, Status: fiber.StatusForbidden,
			Message: "requests to /mcp from this Origin are not allowed (DNS rebinding protection)",
			Hint:    "an operator can allow a browser origin with GATEWAY_MCP_ALLOWED_ORIGINS"}
	}
	return c.Next()
}
