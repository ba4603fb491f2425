package providers

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
)

// ContactSetting is the environment variable holding the operator's contact, which the client
// adds to its User-Agent (capgate/<version> (+<contact>)).
const ContactSetting = "GATEWAY_CONTACT"

// ValidContact checks a GATEWAY_CONTACT value: a bare email address (ops@example.com) or an
// http(s) URL with a host (https://example.com/contact).
func ValidContact(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if strings.ContainsAny(s, " \t\r\n()<>\"") {
		return fmt.Errorf("%q: want an email address or an http(s) URL, without spaces, quotes, brackets or parentheses", s)
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.User != nil {
			return fmt.Errorf("%q: not a usable http(s) URL", s)
		}
		return nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndex(s, "@")+1:], ".") {
		return fmt.Errorf("%q: want an email address (name@example.com) or an http(s) URL", s)
	}
	return nil
}

// contactMissing is why a provider that requires a contact in the User-Agent cannot be called.
func contactMissing(p *Provider) string {
	return fmt.Sprintf("provider %s requires contact details in the User-Agent (set %s to an email address or URL)", p.ID, ContactSetting)
}

// ContactProviders lists the providers that stay unavailable in live mode until GATEWAY_CONTACT
// is set; empty when it is.
func (c *Client) ContactProviders() []*Provider {
	if c.opts.Contact != "" {
		return nil
	}
	var out []*Provider
	for _, p := range c.order {
		if p.ContactRequired {
			out = append(out, p)
		}
	}
	return out
}
