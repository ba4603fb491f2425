package gateway

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Answers that carry rendered records are assembled from those bytes instead of marshalling the
// records again: encoding/json would scan and copy every json.RawMessage. The Go types stay
// the one description of the wire shape; TestRenderedAnswersMatchTheirTypes checks that each
// assembled answer equals json.Marshal of its type, byte for byte.

// writeJSON answers 200 with the bytes that appendTo renders.
func writeJSON(c *fiber.Ctx, appendTo func([]byte) []byte) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	bp := answerBuffers.Get().(*[]byte)
	b := appendTo((*bp)[:0])
	c.Response().SetBody(b) // copied into the server's own pooled buffer
	if cap(b) <= maxPooledAnswer {
		*bp = b
		answerBuffers.Put(bp)
	}
	return nil
}

// answerBuffers are the scratch buffers answers are assembled in: an execute answer is tens of
// kilobytes, and growing a fresh buffer for each was a tenth of the gateway's allocations.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// maxPooledAnswer keeps an occasional huge answer's buffer out of the pool.
const maxPooledAnswer = 1 << 20

// appendValue appends the JSON of a small value as encoding/json renders it.
func appendValue(b []byte, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

func appendKey(b []byte, first bool, key string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendBalance(b []byte, bal balanceJSON) []byte {
	b = append(b, `{"used":`...)
	b = strconv.AppendInt(b, bal.Used, 10)
	b = append(b, `,"cap":`...)
	b = strconv.AppendInt(b, bal.Cap, 10)
	b = append(b, `,"period_end":`...)
	return append(appendTime(b, bal.PeriodEnd), '}')
}

// appendTime renders a time as encoding/json does (RFC 3339 with nanoseconds, quoted).
func appendTime(b []byte, t *time.Time) []byte {
	if t == nil || t.Year() < 0 || t.Year() > 9999 {
		return appendValue(b, t) // null, or the error path encoding/json takes
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendStrings renders a string list as encoding/json does (null when nil).
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendNext renders next as encoding/json does.
func appendNext(b []byte, n nextStep) []byte {
	b = append(b, `{"url":`...)
	b = appendString(b, n.URL)
	b = append(b, `,"actions":`...)
	b = appendStrings(b, n.Actions)
	b = append(b, `,"example":`...)
	if n.Example == nil {
		b = append(b, "null"...)
	} else if out, err := appendAny(b, n.Example); err == nil {
		b = out
	} else {
		b = appendValue(b, n.Example) // what appendAny does not render, as encoding/json does
	}
	return append(b, '}')
}

// appendJSON renders an ExecuteResponse; results are the records' stored bytes.
func (r *executeResponse) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendKey(b, true, "search_id")
	b = appendString(b, r.SearchID)
	b = appendKey(b, false, "capability")
	b = appendString(b, r.Capability)
	b = appendKey(b, false, "results")
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, rec := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, rec...)
		}
		b = append(b, ']')
	}
	b = appendKey(b, false, "result_count")
	b = strconv.AppendInt(b, int64(r.ResultCount), 10)
	b = appendKey(b, false, "has_more")
	b = strconv.AppendBool(b, r.HasMore)
	if len(r.Filters) > 0 {
		b = appendKey(b, false, "filters")
		b = appendValue(b, r.Filters)
	}
	b = appendKey(b, false, "next")
	b = appendNext(b, r.Next)
	b = appendKey(b, false, "record_actions")
	b = appendStrings(b, r.RecordActions)
	if len(r.Notes) > 0 {
		b = appendKey(b, false, "notes")
		b = appendStrings(b, r.Notes)
	}
	b = appendKey(b, false, "charged_credits")
	b = strconv.AppendInt(b, r.ChargedCredits, 10)
	b = appendKey(b, false, "balance")
	b = appendBalance(b, r.Balance)
	return append(b, '}')
}

// appendJSON renders a RecordFollowUpResponse; detail and links are stored bytes.
func (r *recordFollowUpResponse) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendKey(b, true, "record_id")
	b = appendString(b, r.RecordID)
	b = appendKey(b, false, "action")
	b = appendString(b, r.Action)
	b = appendKey(b, false, "detail")
	b = appendRaw(b, r.Detail)
	b = appendKey(b, false, "links")
	if r.linksJSON != nil {
		b = append(b, r.linksJSON...)
	} else {
		b = appendValue(b, r.Links)
	}
	if r.Cached != nil {
		b = appendKey(b, false, "cached")
		b = strconv.AppendBool(b, *r.Cached)
	}
	b = appendKey(b, false, "charged_credits")
	b = strconv.AppendInt(b, r.ChargedCredits, 10)
	b = appendKey(b, false, "balance")
	b = appendBalance(b, r.Balance)
	return append(b, '}')
}

func appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}
