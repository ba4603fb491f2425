package searches

import (
	"hash/maphash"
	"sync"
	"time"
)

// hotTier sits in front of bigcache: the plain encodings of the sessions used last, handed out
// without a copy. bigcache copies an entry out on every read, and for a follow-up on a 25-record
// session that copy (17 KB or more) was nine tenths of the bytes the gateway allocated per call.
// Entries are immutable (decodeRecords' byte fields are capped at their length, so an append
// never writes into them); the tier is bounded in bytes and evicts first-in first-out, and an
// entry older than life is a miss, like bigcache's own life window.
type hotTier struct {
	seed   maphash.Seed
	life   time.Duration
	shards [hotShards]hotShard
}

const hotShards = 16

type hotShard struct {
	mu    sync.Mutex
	m     map[string]hotEntry
	queue []hotKey // insertion order; stale items (replaced or deleted keys) are skipped
	bytes int
	max   int
	gen   uint64
}

type hotEntry struct {
	b   []byte
	at  time.Time
	gen uint64
}

type hotKey struct {
	key string
	gen uint64
}

func newHotTier(maxBytes int, life time.Duration) *hotTier {
	h := &hotTier{seed: maphash.MakeSeed(), life: life}
	for i := range h.shards {
		h.shards[i].m = map[string]hotEntry{}
		h.shards[i].max = maxBytes / hotShards
	}
	return h
}

func (h *hotTier) shard(key string) *hotShard {
	return &h.shards[maphash.String(h.seed, key)%hotShards]
}

// get returns the entry of key; the caller must not modify it.
func (h *hotTier) get(key string, now time.Time) ([]byte, bool) {
	s := h.shard(key)
	s.mu.Lock()
	e, ok := s.m[key]
	s.mu.Unlock()
	if !ok || now.Sub(e.at) > h.life {
		return nil, false
	}
	return e.b, true
}

// put stores b (which nobody may modify afterwards) under key; an entry larger than a shard's
// share is not kept.
func (h *hotTier) put(key string, b []byte, now time.Time) {
	s := h.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(b) > s.max {
		s.removeLocked(key)
		return
	}
	s.removeLocked(key)
	s.gen++
	s.m[key] = hotEntry{b: b, at: now, gen: s.gen}
	s.queue = append(s.queue, hotKey{key, s.gen})
	s.bytes += len(b)
	for s.bytes > s.max && len(s.queue) > 0 {
		k := s.queue[0]
		s.queue = s.queue[1:]
		if e, ok := s.m[k.key]; ok && e.gen == k.gen {
			s.removeLocked(k.key)
		}
	}
	if len(s.queue) > 4*len(s.m)+64 { // compact the stale items away
		live := s.queue[:0]
		for _, k := range s.queue {
			if e, ok := s.m[k.key]; ok && e.gen == k.gen {
				live = append(live, k)
			}
		}
		s.queue = append([]hotKey(nil), live...)
	}
}

func (h *hotTier) del(key string) {
	s := h.shard(key)
	s.mu.Lock()
	s.removeLocked(key)
	s.mu.Unlock()
}

func (s *hotShard) removeLocked(key string) {
	if e, ok := s.m[key]; ok {
		s.bytes -= len(e.b)
		delete(s.m, key)
	}
}
