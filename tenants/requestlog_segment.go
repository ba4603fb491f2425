package tenants

// The request log's storage: segments. The writer stores each batch as one row per tenant (a
// segment: its entries encoded together and compressed), not one row per call: a row per call
// wrote three B-trees for every call (the table, the tenant's time index, the request id index)
// and cost the writer ~14 µs of CPU per logged call, a quarter of a stored-details call. A
// segment costs a few hundred nanoseconds per entry to encode, and its row and index entries are
// shared by up to a thousand calls.
//
// What the rows were for is kept:
//   - Listing (Requests) walks a tenant's segments newest first by their latest entry
//     (request_log_segments_tenant) and merges their entries by time; a segment spans at most
//     segmentSpan of arrival times, so any time bound is an index range.
//   - A request id the gateway made carries its time (internal/ids): the lookup reads the
//     segments around that time. An id a client chose (or one whose time is off by more than
//     idWindow) gets a row in request_log_ids, the one per-call index write left.
//   - Usage is summed per UTC hour, capability and key as each batch is written
//     (request_log_usage), so GET /v1/usage reads a few hundred rows, never the log.

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/klauspost/compress/s2"

	"github.com/capgate/capgate/internal/ids"
)

const (
	// segmentCodec is the first byte of a segment written by this code: the s2 block of the
	// binary encoding follows. A segment converted from the row-per-call table by the migration
	// starts with '[' instead: a JSON array of entries (decodeLegacySegment).
	segmentCodec = 1
	// segmentSpanUS bounds a segment's arrival times (latest − earliest), in microseconds.
	segmentSpanUS = int64(10 * 60 * 1e6)
	// segmentEntries bounds a segment's entries; an entry's ID is its segment's id << entryBits
	// | its position.
	segmentEntries = 1 << entryBits
	entryBits      = 12
	// maxSegmentBytes bounds a decoded segment (a corrupt length never allocates more).
	maxSegmentBytes = 16 << 20
)

// errCorruptSegment is a segment this code cannot read.
var errCorruptSegment = errors.New("request log: corrupt segment")

// entryID is the ID of a segment's entry at a position.
func entryID(segment int64, pos int) int64 { return segment<<entryBits | int64(pos) }

// encodeSegment encodes entries of one tenant, in the order given (the writer sorts them by
// time), with codec segmentCodec. The texts that repeat from call to call (key, mode, via,
// method, route, capability, action, error code) are written once per segment and referred to by
// index; message and request id are written whole.
func encodeSegment(es []RequestEntry) []byte {
	raw := make([]byte, 0, 64+len(es)*48)
	raw = binary.AppendUvarint(raw, uint64(len(es)))
	dict := map[string]uint64{}
	var words []string
	index := func(s string) uint64 {
		i, ok := dict[s]
		if !ok {
			i = uint64(len(words))
			dict[s] = i
			words = append(words, s)
		}
		return i
	}
	body := make([]byte, 0, len(es)*40)
	prev := int64(0)
	for i := range es {
		e := &es[i]
		body = binary.AppendVarint(body, e.AtUS-prev)
		prev = e.AtUS
		body = binary.AppendUvarint(body, uint64(e.Status))
		body = binary.AppendVarint(body, e.Credits)
		body = binary.AppendVarint(body, e.LatencyUS)
		for _, s := range [...]string{e.KeyID, e.Mode, e.Via, e.Method, e.Route, e.Capability, e.Action, e.ErrorCode} {
			body = binary.AppendUvarint(body, index(s))
		}
		body = appendText(body, e.ErrorMessage)
		body = appendText(body, e.RequestID)
	}
	raw = binary.AppendUvarint(raw, uint64(len(words)))
	for _, w := range words {
		raw = appendText(raw, w)
	}
	raw = append(raw, body...)
	out := make([]byte, 1, 1+s2.MaxEncodedLen(len(raw)))
	out[0] = segmentCodec
	return append(out, s2.Encode(out[1:cap(out)], raw)...)
}

func appendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodeSegment reads a segment's entries (of tenantID, in segment id's positions). A segment
// it cannot read is an error, never a panic or an allocation its bytes could size.
func decodeSegment(data []byte, tenantID string, segment int64) ([]RequestEntry, error) {
	if len(data) > 0 && data[0] == '[' {
		return decodeLegacySegment(data, tenantID, segment)
	}
	if len(data) < 2 || data[0] != segmentCodec {
		return nil, errCorruptSegment
	}
	n, err := s2.DecodedLen(data[1:])
	if err != nil || n > maxSegmentBytes {
		return nil, errCorruptSegment
	}
	raw, err := s2.Decode(make([]byte, n), data[1:])
	if err != nil {
		return nil, errCorruptSegment
	}
	r := reader{b: raw}
	count := r.uvarint()
	words := make([]string, 0, min(r.uvarint(), uint64(len(raw))))
	for range cap(words) {
		words = append(words, r.text())
	}
	if r.err || count > segmentEntries {
		return nil, errCorruptSegment
	}
	word := func() string {
		i := r.uvarint()
		if i >= uint64(len(words)) {
			r.err = true
			return ""
		}
		return words[i]
	}
	out := make([]RequestEntry, count)
	prev := int64(0)
	for i := range out {
		e := &out[i]
		e.ID, e.TenantID = entryID(segment, i), tenantID
		prev += r.varint()
		e.AtUS = prev
		e.Status = int(min(r.uvarint(), 999))
		e.Credits, e.LatencyUS = r.varint(), r.varint()
		e.KeyID, e.Mode, e.Via, e.Method = word(), word(), word(), word()
		e.Route, e.Capability, e.Action, e.ErrorCode = word(), word(), word(), word()
		e.ErrorMessage, e.RequestID = r.text(), r.text()
		if r.err {
			return nil, errCorruptSegment
		}
	}
	return out, nil
}

// reader reads varints and texts from a decoded segment, remembering the first failure.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) fail() {
	r.err = true
	r.b = nil
}

// varintRead moves past a varint of n bytes (as encoding/binary reports it: ≤ 0 when there was
// none) and answers whether there was one.
func (r *reader) varintRead(n int) bool {
	if n <= 0 {
		r.fail()
		return false
	}
	r.b = r.b[n:]
	return true
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if !r.varintRead(n) {
		return 0
	}
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if !r.varintRead(n) {
		return 0
	}
	return v
}

func (r *reader) text() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeLegacySegment reads a segment the migration made from the row-per-call table: a JSON
// array of [at_us, key_id, mode, via, method, route, capability, action, status, error_code,
// error_message, credits, latency_us, request_id].
func decodeLegacySegment(data []byte, tenantID string, segment int64) ([]RequestEntry, error) {
	var rows [][14]json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) > segmentEntries {
		return nil, errCorruptSegment
	}
	out := make([]RequestEntry, len(rows))
	for i, row := range rows {
		e := &out[i]
		e.TenantID = tenantID
		// The columns in the migration's order.
		for j, p := range [...]any{&e.AtUS, &e.KeyID, &e.Mode, &e.Via, &e.Method, &e.Route, &e.Capability, &e.Action,
			&e.Status, &e.ErrorCode, &e.ErrorMessage, &e.Credits, &e.LatencyUS, &e.RequestID} {
			if err := json.Unmarshal(row[j], p); err != nil {
				return nil, fmt.Errorf("%w: %v", errCorruptSegment, err)
			}
		}
	}
	// The positions follow time, as the writer's do.
	slices.SortStableFunc(out, func(a, b RequestEntry) int { return cmp.Compare(a.AtUS, b.AtUS) })
	for i := range out {
		out[i].ID = entryID(segment, i)
	}
	return out, nil
}

// The request ids the gateway makes (gateway.newRequestID): this prefix, then the time.
const requestIDPrefix = "req_"

// idWindowUS is how far an id's time may be from its call's arrival for the lookup to find it
// by time: the gateway makes the id as the call arrives, and an MCP tool's /v1 call shares its
// /mcp request's id a moment later.
const idWindowUS = int64(5 * 1e6)

// ourRequestID tells whether a request id is one the gateway made for a call that arrived at
// atUS (its time prefix within idWindowUS of the arrival): the lookup finds those by time, with
// no index row.
func ourRequestID(id string, atUS int64) bool {
	ms, ok := ids.TimeOf(requestIDPrefix, id)
	if !ok {
		return false
	}
	d := ms*1000 - atUS
	return d >= -idWindowUS && d <= idWindowUS
}
