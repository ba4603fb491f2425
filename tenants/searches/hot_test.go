package searches

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// TestHotTier: entries come back as stored, the byte budget holds with first-in first-out
// eviction, replacements and deletions count right, and old entries are misses.
func TestHotTier(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	h := newHotTier(16*1000, time.Minute) // 1,000 bytes a shard
	blob := func(i, n int) []byte { return bytes.Repeat([]byte{byte(i)}, n) }

	h.put("a", blob(1, 100), now)
	if b, ok := h.get("a", now); !ok || !bytes.Equal(b, blob(1, 100)) {
		t.Fatalf("get a = %v, %v", len(b), ok)
	}
	h.put("a", blob(2, 200), now) // replaced: counted once
	if b, _ := h.get("a", now); !bytes.Equal(b, blob(2, 200)) {
		t.Fatal("replacement not returned")
	}
	if s := h.shard("a"); s.bytes != 200 || len(s.m) != 1 {
		t.Fatalf("shard holds %d bytes in %d entries, want 200 in 1", s.bytes, len(s.m))
	}
	if _, ok := h.get("a", now.Add(2*time.Minute)); ok {
		t.Fatal("an entry older than its life is a hit")
	}
	h.del("a")
	if _, ok := h.get("a", now); ok || h.shard("a").bytes != 0 {
		t.Fatal("deleted entry still there")
	}
	h.put("big", blob(3, 1001), now)
	if _, ok := h.get("big", now); ok {
		t.Fatal("an entry larger than a shard's share is kept")
	}

	// Many keys: every shard stays within its share, and the newest entries survive.
	for i := range 2000 {
		h.put(fmt.Sprint("k", i), blob(i, 90), now)
	}
	for i := range h.shards {
		s := &h.shards[i]
		if s.bytes > s.max || s.bytes != 90*len(s.m) || len(s.queue) > 4*len(s.m)+64 {
			t.Fatalf("shard %d: %d bytes (max %d), %d entries, queue %d", i, s.bytes, s.max, len(s.m), len(s.queue))
		}
	}
	if b, ok := h.get("k1999", now); !ok || !bytes.Equal(b, blob(1999, 90)) {
		t.Fatal("the newest entry was evicted")
	}
	if _, ok := h.get("k0", now); ok {
		t.Fatal("the oldest entry survived 2,000 insertions")
	}
}

// TestCacheForm: the caches keep a session plain up to maxPlainCached and compressed above, and
// both forms decode.
func TestCacheForm(t *testing.T) {
	for _, n := range []int{1, 25, 2000} {
		s := &Session{ID: "srch_0123456789abcdef", TenantID: "tnt_a", Mode: "live", Capability: "web.search"}
		for i := range n {
			s.Records = append(s.Records, &Record{Position: i, Body: []byte(fmt.Sprintf(`{"title":"record %d of a long list"}`, i))})
		}
		plain := encodePlain(s)
		stored := pack(plain)
		b := cacheForm(plain, stored)
		want := plain
		if len(plain) > maxPlainCached {
			want = stored
		}
		if &b[0] != &want[0] || len(b) != len(want) {
			t.Fatalf("%d records: cached form of %d bytes for a plain form of %d", n, len(b), len(plain))
		}
		got, _, err := decodeRecords(b, -1)
		if err != nil || len(got.Records) != n || !bytes.Equal(got.Records[n-1].Body, s.Records[n-1].Body) {
			t.Fatalf("%d records: %v", n, err)
		}
	}
}
