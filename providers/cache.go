package providers

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"
)

// The terms a shared cache of upstream answers keeps. Each provider declares what its terms
// allow (Provider.Cache: the longest an answer may be kept, and where the rule comes from); each
// capability declares how fresh its answers need to be by default (Capability.Fresh) and whether
// they depend on who asks (Capability.Personal). The gateway's shared cache reads nothing else:
// an answer is kept for the shortest of the capability's freshness and the MaxAge of every
// provider the call actually used, and never when one of them is 0.

// CacheRule is what a provider's terms allow a shared cache to keep of its answers.
type CacheRule struct {
	// MaxAge is the longest an answer may be served from the cache; 0 means never stored beyond
	// the call (the terms forbid it, or nothing could be confirmed).
	MaxAge time.Duration
	// Rule says what the terms say, in one line (the README's provider table shows it).
	Rule string
	// Source is where the rule comes from: the vendor's page, or "third-party source: …" when
	// only that was found, or "not found: conservative" when nothing was.
	Source string
}

// Cacheable tells whether answers may be kept at all.
func (r CacheRule) Cacheable() bool { return r.MaxAge > 0 }

// usedUpstreams records which providers a call reached (the cache keeps an answer only as long
// as every one of them allows). Adapters may fetch from several goroutines.
type usedUpstreams struct {
	mu  sync.Mutex
	ids []string
}

func (u *usedUpstreams) add(id string) {
	u.mu.Lock()
	for _, x := range u.ids {
		if x == id {
			u.mu.Unlock()
			return
		}
	}
	u.ids = append(u.ids, id)
	u.mu.Unlock()
}

// UsedProviders lists the providers the call has reached so far.
func (c *Call) UsedProviders() []string {
	c.used.mu.Lock()
	defer c.used.mu.Unlock()
	return append([]string(nil), c.used.ids...)
}

// CacheFor is how long the call's answer may be kept in the shared cache: the capability's
// freshness bounded by the MaxAge of every provider the call used (and of every provider the
// capability declares, so a fallback that was not reached this time cannot widen it); 0 when the
// answer must not be kept.
func (c *Client) CacheFor(cp *Capability, call *Call) time.Duration {
	if cp.Personal || cp.Fresh <= 0 {
		return 0
	}
	ttl := cp.Fresh
	bound := func(id string) {
		p, ok := c.providers[id]
		if !ok || !p.Cache.Cacheable() {
			ttl = 0
			return
		}
		if p.Cache.MaxAge < ttl {
			ttl = p.Cache.MaxAge
		}
	}
	for _, id := range cp.Providers {
		bound(id)
	}
	if call != nil {
		for _, id := range call.UsedProviders() {
			bound(id)
		}
	}
	return ttl
}

// Shareable tells, before any upstream call, whether the capability's answers may be shared at
// all: not personalised, a freshness set, and every provider it declares allowing a cache.
func (c *Client) Shareable(cp *Capability) bool { return c.CacheFor(cp, nil) > 0 }

// SettingsFingerprint identifies the settings (base URL and key) the capability's providers are
// reached with in the given mode: the shared cache keys answers by it, so an answer fetched with
// one key or host is never served to a call that would use another. The key itself only enters
// through a hash.
func (c *Client) SettingsFingerprint(cp *Capability, mode Mode) [16]byte {
	h := sha256.New()
	var n [8]byte
	for _, id := range cp.Providers {
		p, ok := c.providers[id]
		if !ok {
			continue
		}
		var s Setting
		if mode == ModeTest {
			s = Setting{URL: sandboxBase(p), Key: "sandbox"}
		} else {
			s = c.effective(p)
		}
		for _, v := range []string{id, s.URL, s.Key} {
			binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write([]byte(v))
		}
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}
