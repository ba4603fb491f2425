package tenants

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/capgate/capgate/internal/ids"
)

func segmentEntriesForTest(n int) []RequestEntry {
	base := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC).UnixMicro()
	es := make([]RequestEntry, n)
	for i := range es {
		at := base + int64(i)*1700
		es[i] = RequestEntry{TenantID: "tnt_a", KeyID: []string{"key_a", "key_b"}[i%2], Mode: "live", Via: "api", Method: "POST",
			Route: "/v1/capabilities/:id/execute", Capability: "books.search", Action: "search", Status: 200, Credits: int64(i % 3),
			LatencyUS: int64(800 + i), RequestID: ids.New("req_", time.UnixMicro(at), 12), AtUS: at}
		if i%7 == 3 {
			es[i].Status, es[i].ErrorCode, es[i].ErrorMessage = 503, "upstream_unavailable", "the upstream did not answer: «timeout»"
			es[i].Credits, es[i].LatencyUS = -1, -5 // not what the gateway writes, but the codec keeps any value
		}
	}
	return es
}

// TestSegmentRoundTrip: a segment decodes to the entries it was made of, each with its
// segment's tenant and an ID of its segment and position.
func TestSegmentRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 50, segmentEntries} {
		es := segmentEntriesForTest(n)
		got, err := decodeSegment(encodeSegment(es), "tnt_a", 77)
		if err != nil {
			t.Fatal(err)
		}
		for i := range es {
			es[i].ID = entryID(77, i)
		}
		if !reflect.DeepEqual(got, es) {
			t.Fatalf("%d entries: decoded entries differ", n)
		}
	}
}

// TestSegmentCorrupt: a damaged segment (cut short anywhere, a byte changed, another codec)
// is an error or some entries, never a panic or a huge allocation.
func TestSegmentCorrupt(t *testing.T) {
	data := encodeSegment(segmentEntriesForTest(40))
	for i := range len(data) {
		if _, err := decodeSegment(data[:i], "tnt_a", 1); err == nil {
			t.Fatalf("a segment cut to %d of %d bytes was read", i, len(data))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		bad := append([]byte(nil), data...)
		for range 1 + r.IntN(4) {
			bad[r.IntN(len(bad))] = byte(r.Uint32())
		}
		_, _ = decodeSegment(bad, "tnt_a", 1)
	}
	for _, bad := range [][]byte{nil, {}, {segmentCodec}, {9, 1, 2}, []byte("[[1,2]]"), []byte("[["), []byte(`[[1,"k","m","v","GET","/r","c","a","x","","",0,0,""]]`)} {
		if _, err := decodeSegment(bad, "tnt_a", 1); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

// TestLegacySegment: the JSON segments the migration made from the old table read back in time
// order.
func TestLegacySegment(t *testing.T) {
	data := []byte(`[[2000,"key_a","live","api","POST","/v1/x","books.search","search",503,"upstream_unavailable","slow",0,900,"r2"],
		[1000,"key_a","test","mcp","POST","/mcp","","tools/call",200,"","",3,100,"r1"]]`)
	es, err := decodeSegment(data, "tnt_a", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []RequestEntry{
		{ID: entryID(5, 0), TenantID: "tnt_a", KeyID: "key_a", Mode: "test", Via: "mcp", Method: "POST", Route: "/mcp", Action: "tools/call", Status: 200, Credits: 3, LatencyUS: 100, RequestID: "r1", AtUS: 1000},
		{ID: entryID(5, 1), TenantID: "tnt_a", KeyID: "key_a", Mode: "live", Via: "api", Method: "POST", Route: "/v1/x", Capability: "books.search", Action: "search", Status: 503, ErrorCode: "upstream_unavailable", ErrorMessage: "slow", LatencyUS: 900, RequestID: "r2", AtUS: 2000},
	}
	if !reflect.DeepEqual(es, want) {
		t.Fatalf("got %+v", es)
	}
}

// TestOurRequestID: an id the gateway made for the call (its time within the window of the
// arrival) needs no id row; a client's id, or one whose time is far off, does.
func TestOurRequestID(t *testing.T) {
	at := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		id   string
		ours bool
	}{
		{ids.New("req_", at, 12), true},
		{ids.New("req_", at.Add(4*time.Second), 12), true},
		{ids.New("req_", at.Add(-6*time.Second), 12), false},
		{ids.New("rq_", at, 12), false},
		{"my-trace-0001", false},
		{"req_!!!!!!!!", false},
	} {
		if got := ourRequestID(tc.id, at.UnixMicro()); got != tc.ours {
			t.Errorf("ourRequestID(%q) = %v", tc.id, got)
		}
	}
}

// BenchmarkSegmentEncode: the writer's CPU to encode and compress a logged call.
func BenchmarkSegmentEncode(b *testing.B) {
	es := segmentEntriesForTest(1000)
	b.ReportAllocs()
	for b.Loop() {
		encodeSegment(es)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(es)), "ns/entry")
}
