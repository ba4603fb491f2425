// Package lenient decodes upstream JSON leniently: a field that is absent, null or of an
// unexpected type is "not there" — never a panic and never a failed page — because many
// upstreams are documented by example rather than by schema and change field types over time
// (numbers sent as strings, ids as numbers or strings). Record mappers then leave absent values
// out instead of writing zeros.
//
// Every type decodes itself from a streaming token decoder (jsontext.Decoder, the
// UnmarshalerFrom interface of github.com/go-json-experiment/json), so an answer decoded with
// [Unmarshal] is read once, byte by byte: a value of the wrong type is skipped by the decoder, not
// parsed again. The types also implement encoding/json's Unmarshaler for code that still decodes
// with encoding/json; there encoding/json validates the input and finds each value's end before
// handing it over, so a value is read three times, however deeply it is nested.
//
// [Unmarshal] first tries a fast path (fast.go): fastjson's value tree bound through a plan
// cached per type. It gives the same values and errors as the streaming path, which decodes
// whatever the fast path leaves to it.
package lenient

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// options are encoding/json's semantics (case-insensitive field names, duplicate names and
// invalid UTF-8 accepted, merge into existing values) except that the input is not validated as
// a whole before decoding, which would read it twice, and that decoding stops at the first type
// error. Plain (non-lenient) fields keep failing on a type error as they did with encoding/json.
var options = json.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// Unmarshal decodes one JSON value into v with encoding/json's semantics. Malformed JSON and
// type errors of plain fields are errors, as with encoding/json.Unmarshal. It takes the fast path
// (fast.go) when it can and the streaming path otherwise; both give the same values and errors.
func Unmarshal(data []byte, v any) error {
	if unmarshalFast(data, v) {
		return nil
	}
	return unmarshalStreaming(data, v)
}

// unmarshalStreaming decodes data in one streaming pass: the lenient types read themselves from
// the token stream.
func unmarshalStreaming(data []byte, v any) error {
	return json.Unmarshal(data, v, options)
}

// fromBytes is the encoding/json entry point of every type: encoding/json has validated b.
func fromBytes(b []byte, v json.UnmarshalerFrom) error {
	_ = json.Unmarshal(b, v, options)
	return nil
}

// syntactic tells whether err means the input itself is not JSON (then decoding must stop).
func syntactic(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// decodeValue decodes the next value into v. A value that does not fit v (a type error anywhere
// inside it) is skipped to its end and reported as ok == false; only malformed JSON is an error.
func decodeValue(dec *jsontext.Decoder, v any) (ok bool, err error) {
	depth := dec.StackDepth()
	_, read := dec.StackIndex(depth)
	err = json.UnmarshalDecode(dec, v)
	if err == nil {
		return true, nil
	}
	if syntactic(err) {
		return false, err
	}
	// A type error may stop inside the value or before it: skip what is left of it.
	for dec.StackDepth() > depth {
		switch dec.PeekKind() {
		case '}', ']':
			_, err = dec.ReadToken()
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return false, err
		}
	}
	if _, now := dec.StackIndex(depth); now == read {
		if err := dec.SkipValue(); err != nil {
			return false, err
		}
	}
	return false, nil
}

// number reads a JSON number or a numeric string; anything else is skipped.
func number(dec *jsontext.Decoder) (float64, bool, error) {
	var s string
	switch dec.PeekKind() {
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return 0, false, err
		}
		s = string(v)
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return 0, false, err
		}
		s = strings.TrimSpace(tok.String())
	default:
		return 0, false, dec.SkipValue()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, nil
	}
	return f, true, nil
}

// Int is an integer that may be absent, null, a JSON number or a numeric string; a number with a
// fraction or beyond ±2^53 is absent.
type Int struct {
	V  int64
	OK bool
}

// UnmarshalJSONFrom never fails on a well-formed value.
func (n *Int) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*n = Int{}
	f, ok, err := number(dec)
	if ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		*n = Int{V: int64(f), OK: true}
	}
	return err
}

// UnmarshalJSON never fails.
func (n *Int) UnmarshalJSON(b []byte) error { return fromBytes(b, n) }

// Float is a number that may be absent, null, a JSON number or a numeric string.
type Float struct {
	V  float64
	OK bool
}

// UnmarshalJSONFrom never fails on a well-formed value.
func (n *Float) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*n = Float{}
	f, ok, err := number(dec)
	if ok {
		*n = Float{V: f, OK: true}
	}
	return err
}

// UnmarshalJSON never fails.
func (n *Float) UnmarshalJSON(b []byte) error { return fromBytes(b, n) }

// Str is a string that may be absent, null or of another type; it is kept trimmed and blank
// strings count as absent.
type Str string

// UnmarshalJSONFrom never fails on a well-formed value.
func (s *Str) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*s = ""
	if dec.PeekKind() != '"' {
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err == nil {
		*s = Str(strings.TrimSpace(tok.String()))
	}
	return err
}

// UnmarshalJSON never fails.
func (s *Str) UnmarshalJSON(b []byte) error { return fromBytes(b, s) }

// Bool is a boolean that may be absent, null or of another type.
type Bool struct {
	V  bool
	OK bool
}

// UnmarshalJSONFrom never fails on a well-formed value.
func (o *Bool) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*o = Bool{}
	if k := dec.PeekKind(); k != 't' && k != 'f' {
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err == nil {
		*o = Bool{V: tok.Bool(), OK: true}
	}
	return err
}

// UnmarshalJSON never fails.
func (o *Bool) UnmarshalJSON(b []byte) error { return fromBytes(b, o) }

// ID is an upstream id sent as a JSON number (an integer) or a string, kept as text.
type ID string

// UnmarshalJSONFrom never fails on a well-formed value.
func (id *ID) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*id = ""
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err == nil {
			*id = ID(strings.TrimSpace(tok.String()))
		}
		return err
	case '0':
		v, err := dec.ReadValue()
		if err == nil {
			if i, perr := strconv.ParseInt(string(v), 10, 64); perr == nil {
				*id = ID(strconv.FormatInt(i, 10))
			}
		}
		return err
	default:
		return dec.SkipValue()
	}
}

// UnmarshalJSON never fails.
func (id *ID) UnmarshalJSON(b []byte) error { return fromBytes(b, id) }

// List is a JSON array that may be absent, null or of another type (then it is nil, while a
// present empty array is a non-nil empty list); null elements and elements that do not decode
// are skipped.
type List[T any] []T

// UnmarshalJSONFrom never fails on a well-formed value.
func (l *List[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*l = nil
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	out := List[T]{}
	var zero T
	for {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			*l = out
			return err
		case 'n':
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		// Decode in place; a value that does not decode is dropped again.
		out = append(out, zero)
		ok, err := decodeValue(dec, &out[len(out)-1])
		if err != nil {
			return err
		}
		if !ok {
			out = out[:len(out)-1]
		}
	}
}

// UnmarshalJSON never fails.
func (l *List[T]) UnmarshalJSON(b []byte) error { return fromBytes(b, l) }

// Obj is a JSON object that may be absent, null or of another type (then V is nil).
type Obj[T any] struct{ V *T }

// UnmarshalJSONFrom never fails on a well-formed value.
func (o *Obj[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	o.V = nil
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	v := new(T)
	ok, err := decodeValue(dec, v)
	if ok {
		o.V = v
	}
	return err
}

// UnmarshalJSON never fails.
func (o *Obj[T]) UnmarshalJSON(b []byte) error { return fromBytes(b, o) }

// Opt is a value of any JSON shape that decodes into T; absent, null or a value that does not
// decode leaves it zero with OK false. Unlike Obj it holds T itself, so reading a field of an
// absent object gives that field's zero value.
type Opt[T any] struct {
	V  T
	OK bool
}

// UnmarshalJSONFrom never fails on a well-formed value.
func (o *Opt[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*o = Opt[T]{}
	if dec.PeekKind() == 'n' {
		return dec.SkipValue()
	}
	ok, err := decodeValue(dec, &o.V)
	if !ok {
		var zero T
		o.V = zero
	}
	o.OK = ok
	return err
}

// UnmarshalJSON never fails.
func (o *Opt[T]) UnmarshalJSON(b []byte) error { return fromBytes(b, o) }

// Strs is a JSON array of strings; elements that are not strings or are blank are dropped, and a
// value that is not an array is nil.
type Strs []string

// UnmarshalJSONFrom never fails on a well-formed value.
func (s *Strs) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var l List[Str]
	err := l.UnmarshalJSONFrom(dec)
	*s = nil
	for _, v := range l {
		if v != "" {
			*s = append(*s, string(v))
		}
	}
	return err
}

// UnmarshalJSON never fails.
func (s *Strs) UnmarshalJSON(b []byte) error { return fromBytes(b, s) }

// SetStr sets a record field when the value is non-empty.
func SetStr(fields map[string]any, key, v string) {
	if v != "" {
		fields[key] = v
	}
}

// SetInt sets a record field when the value is present.
func SetInt(fields map[string]any, key string, v Int) {
	if v.OK {
		fields[key] = v.V
	}
}

// SetBool sets a record field when the value is present.
func SetBool(fields map[string]any, key string, v Bool) {
	if v.OK {
		fields[key] = v.V
	}
}
