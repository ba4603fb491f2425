package lenient_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// The reference types below are the lenient decoders as they were before the one-pass decoder:
// each value decoded with encoding/json on its own slice. The fuzz test checks that the one-pass
// decoder gives the same values on any valid JSON. One deliberate difference: a JSON null Bool
// used to decode as a present false (encoding/json leaves a bool untouched on null); it is now
// absent, as the package contract says.

type refInt struct {
	V  int64
	OK bool
}

func refNumber(b []byte) (float64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 1 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0, false
		}
		b = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (n *refInt) UnmarshalJSON(b []byte) error {
	*n = refInt{}
	if f, ok := refNumber(b); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		*n = refInt{V: int64(f), OK: true}
	}
	return nil
}

type refFloat struct {
	V  float64
	OK bool
}

func (n *refFloat) UnmarshalJSON(b []byte) error {
	*n = refFloat{}
	if f, ok := refNumber(b); ok {
		*n = refFloat{V: f, OK: true}
	}
	return nil
}

type refStr string

func (s *refStr) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) != nil {
		*s = ""
		return nil
	}
	*s = refStr(strings.TrimSpace(v))
	return nil
}

type refBool struct {
	V  bool
	OK bool
}

func (o *refBool) UnmarshalJSON(b []byte) error {
	*o = refBool{}
	var v bool
	if !bytes.Equal(b, []byte("null")) && json.Unmarshal(b, &v) == nil {
		*o = refBool{V: v, OK: true}
	}
	return nil
}

type refID string

func (id *refID) UnmarshalJSON(b []byte) error {
	*id = ""
	b = bytes.TrimSpace(b)
	var s string
	if json.Unmarshal(b, &s) == nil {
		*id = refID(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		if i, err := n.Int64(); err == nil {
			*id = refID(strconv.FormatInt(i, 10))
		}
	}
	return nil
}

type refList[T any] []T

func (l *refList[T]) UnmarshalJSON(b []byte) error {
	*l = nil
	var raw []json.RawMessage
	if json.Unmarshal(b, &raw) != nil || raw == nil {
		return nil
	}
	*l = make(refList[T], 0, len(raw))
	for _, r := range raw {
		if bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			continue
		}
		var v T
		if json.Unmarshal(r, &v) == nil {
			*l = append(*l, v)
		}
	}
	return nil
}

type refObj[T any] struct{ V *T }

func (o *refObj[T]) UnmarshalJSON(b []byte) error {
	o.V = nil
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return nil
	}
	var v T
	if json.Unmarshal(b, &v) == nil {
		o.V = &v
	}
	return nil
}

// refAll mirrors all field by field, so both marshal to the same JSON when they agree.
type refAll struct {
	I  refInt
	F  refFloat
	S  refStr
	B  refBool
	ID refID
	L  refList[int]
	LS refList[refStr]
	LP refList[plainItem]
	LL refList[refList[int]]
	O  refObj[plainItem]
	OL refObj[refAll]
	P  refOpt[plainItem]
	PL refOpt[[]refOpt[int]]
	SS refStrs
}

// refOpt is openalex's former opt.
type refOpt[T any] struct {
	V  T
	OK bool
}

func (o *refOpt[T]) UnmarshalJSON(b []byte) error {
	*o = refOpt[T]{}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var v T
	if json.Unmarshal(b, &v) == nil {
		*o = refOpt[T]{V: v, OK: true}
	}
	return nil
}

// refStrs is video's former strs.
type refStrs []string

func (s *refStrs) UnmarshalJSON(b []byte) error {
	*s = nil
	var items refList[refStr]
	_ = json.Unmarshal(b, &items)
	for _, it := range items {
		if it != "" {
			*s = append(*s, string(it))
		}
	}
	return nil
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"I":"42","F":"2.5","S":" x ","B":true,"ID":7,"L":[1,null,"x"],"LS":["a",1]}`,
		`{"LP":[{"A":1,"B":"x"},{"A":2}],"LL":[[1],[null,"x"],3],"O":{"A":1},"OL":{"OL":{"S":"deep"}}}`,
		`{"I":1e400,"F":-0,"ID":1.0,"S":"\ud800","B":null,"s":"case","S":"dup"}`,
		`{"O":{"A":[{"x":[1,{"y":2}]}],"B":3},"L":[[[[]]]]}`, `{"P":{"A":1,"B":[2]},"PL":[1,null,{}],"SS":["a",1,""," b "]}`, `{"L":[1,2`, `[{"ID":"x"}]`, "{\"S\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var got lenient.Obj[all]
		err := lenient.Unmarshal(in, &got) // must not panic on any input
		if !json.Valid(in) {
			return
		}
		if err != nil {
			t.Fatalf("valid JSON failed to decode: %v", err)
		}
		var want refObj[refAll]
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("reference: %v", err)
		}
		if g, w := dump(got), dump(want); g != w {
			t.Errorf("one-pass  %s\nreference %s", g, w)
		}
		var viaV1 lenient.Obj[all]
		if err := json.Unmarshal(in, &viaV1); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if g, w := dump(got), dump(viaV1); g != w {
			t.Errorf("one-pass      %s\nencoding/json %s", g, w)
		}
	})
}
