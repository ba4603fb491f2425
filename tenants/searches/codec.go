package searches

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/s2"
)

// A session is stored as one row whose data column holds the whole session, records included,
// in a small length-prefixed binary form: decoding slices the buffer instead of parsing JSON, so
// reading a record back costs next to nothing. Data above compressAbove bytes is s2-compressed.
const (
	formatPlain   = 'S'
	formatS2      = 'Z'
	compressAbove = 4 << 10
)

var errCorrupt = errors.New("session: stored data is corrupt")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)        { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) bytes(v []byte)   { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encoder) str(v string)     { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encoder) time(t time.Time) { e.b = binary.AppendVarint(e.b, t.UnixMicro()) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// pack turns a plain encoding into the stored form: s2-compressed above compressAbove bytes.
func pack(plain []byte) []byte {
	if len(plain) > compressAbove {
		// s2 wants room for the worst case (more than the input); the row keeps only what the
		// compressed form takes.
		bp := packBuffers.Get().(*[]byte)
		if n := s2.MaxEncodedLen(len(plain) - 1); cap(*bp) < n {
			*bp = make([]byte, n)
		}
		enc := s2.Encode((*bp)[:cap(*bp)], plain[1:])
		out := make([]byte, 1+len(enc))
		out[0] = formatS2
		copy(out[1:], enc)
		if cap(*bp) <= 1<<20 {
			packBuffers.Put(bp)
		}
		return out
	}
	return plain
}

var packBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// unpack turns a stored form into the plain one; the edge cache keeps plain encodings, so a
// follow-up served from it decodes one record without decompressing the session.
func unpack(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, errCorrupt
	}
	switch data[0] {
	case formatPlain, formatRef:
		return data, nil
	case formatS2:
		n, err := s2.DecodedLen(data[1:])
		if err != nil {
			return nil, errCorrupt
		}
		plain := make([]byte, 1, 1+n)
		plain[0] = formatPlain
		if _, err := s2.Decode(plain[1:1+n], data[1:]); err != nil {
			return nil, errCorrupt
		}
		return plain[:1+n], nil
	default:
		return nil, errCorrupt
	}
}

// encodePlain renders a session, records included, uncompressed.
func encodePlain(s *Session) []byte {
	size := 256 + len(s.Query) + len(s.NextState) + len(s.Filters) + len(s.Notes)
	for _, r := range s.Records {
		size += 32 + len(r.Body) + len(r.Ref)
		for _, d := range r.Stored {
			size += 16 + len(d.Action) + len(d.Detail) + len(d.Links)
		}
	}
	e := encoder{b: make([]byte, 1, size)}
	e.b[0] = formatPlain
	e.str(s.ID)
	e.str(s.TenantID)
	e.str(s.Mode)
	e.str(s.Capability)
	e.bytes(s.Query)
	e.str(s.NextState)
	e.bool(s.HasMore)
	e.int(s.Generation)
	e.int(s.LocalOffset)
	e.int(s.LocalTotal)
	e.bytes(s.Filters)
	e.bytes(s.Notes)
	e.int(s.Version)
	e.time(s.CreatedAt)
	e.time(s.ExpiresAt)
	e.uint(uint64(len(s.Records)))
	for _, r := range s.Records {
		e.int(r.Generation)
		e.int(r.Position)
		e.bytes(r.Body)
		e.bytes(r.Ref)
		if r.Actions == nil {
			e.uint(0)
		} else {
			e.uint(uint64(len(r.Actions)) + 1)
			for _, a := range r.Actions {
				e.str(a)
			}
		}
		e.uint(uint64(len(r.Stored)))
		for _, d := range r.Stored {
			e.str(d.Action)
			e.bytes(d.Detail)
			e.bytes(d.Links)
		}
	}
	return e.b
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.uint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) bool() bool {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) time() time.Time {
	return time.UnixMicro(int64(d.int())).UTC()
}

// decodeRecords reads a session back; with want < 0 every record (Records filled), otherwise
// only record want, returned apart (nil when there is none; Records stays nil). Byte fields alias
// data, which the caller must not reuse. A session that refers to a shared page comes back
// without records (pageID set): resolve reads them.
func decodeRecords(data []byte, want int) (*Session, *Record, error) {
	data, err := unpack(data)
	if err != nil {
		return nil, nil, err
	}
	d := decoder{b: data[1:]}
	s := d.head()
	if data[0] == formatRef {
		s.pageID = d.str()
		s.pageLen = int(d.uint())
		if d.err != nil || len(d.b) != 0 || len(s.ID) < 5+keyLen || s.pageLen > maxPageRecords {
			return nil, nil, errCorrupt
		}
		return s, nil, nil // the records are the page's (resolve)
	}
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) || len(s.ID) < 5+keyLen {
		return nil, nil, errCorrupt
	}
	var recs []Record
	if want < 0 {
		s.Records = make([]*Record, n)
		recs = make([]Record, n)
	} else {
		recs = make([]Record, 1)
	}
	var found *Record
	for i := 0; i < int(n); i++ {
		keep := want < 0 || i == want
		r := &recs[0]
		if want < 0 {
			r = &recs[i]
		}
		r.Generation = d.int()
		r.Position = d.int()
		r.Body = d.bytes()
		r.Ref = d.bytes()
		r.Actions = nil
		if na := d.uint(); na > 0 {
			if na-1 > uint64(len(d.b)) {
				return nil, nil, errCorrupt
			}
			if keep {
				r.Actions = make([]string, 0, na-1)
			}
			for j := uint64(1); j < na && d.err == nil; j++ {
				if keep {
					r.Actions = append(r.Actions, d.str())
				} else {
					d.bytes()
				}
			}
		}
		r.Stored = nil
		if ns := d.uint(); ns > 0 {
			if ns > uint64(len(d.b)) {
				return nil, nil, errCorrupt
			}
			if keep {
				r.Stored = make([]StoredDetail, 0, ns)
			}
			for j := uint64(0); j < ns && d.err == nil; j++ {
				sd := StoredDetail{Action: string(d.bytes()), Detail: d.bytes(), Links: d.bytes()}
				if keep {
					r.Stored = append(r.Stored, sd)
				}
			}
		}
		if d.err != nil {
			return nil, nil, d.err
		}
		if keep {
			r.ID = recordID(s.ID, i)
			if want < 0 {
				s.Records[i] = r
			} else {
				found = r
				break
			}
		}
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	return s, found, nil
}

// head reads a session's own fields (everything but its records).
func (d *decoder) head() *Session {
	s := &Session{}
	s.ID = d.str()
	s.TenantID = d.str()
	s.Mode = d.str()
	s.Capability = d.str()
	s.Query = d.bytes()
	s.NextState = d.str()
	s.HasMore = d.bool()
	s.Generation = d.int()
	s.LocalOffset = d.int()
	s.LocalTotal = d.int()
	s.Filters = d.bytes()
	s.Notes = d.bytes()
	s.Version = d.int()
	s.CreatedAt = d.time()
	s.ExpiresAt = d.time()
	return s
}

// formatDetail marks a cached record-action answer: "D" + the detail's length in decimal + ":"
// + detail + links. It stays text (the column is TEXT; PostgreSQL refuses NUL bytes there).
const formatDetail = 'D'

// EncodeDetail renders a cached record-action answer for PutDetail.
func EncodeDetail(detail, links []byte) []byte {
	b := make([]byte, 0, 24+len(detail)+len(links))
	b = append(b, formatDetail)
	b = strconv.AppendInt(b, int64(len(detail)), 10)
	b = append(b, ':')
	b = append(b, detail...)
	return append(b, links...)
}

// DecodeDetail reads what EncodeDetail wrote.
func DecodeDetail(b []byte) (detail, links []byte, ok bool) {
	if len(b) == 0 || b[0] != formatDetail {
		return nil, nil, false
	}
	i := bytes.IndexByte(b, ':')
	if i < 2 {
		return nil, nil, false
	}
	n, err := strconv.Atoi(string(b[1:i]))
	rest := b[i+1:]
	if err != nil || n <= 0 || n > len(rest) {
		return nil, nil, false
	}
	return rest[:n:n], rest[n:], true
}
