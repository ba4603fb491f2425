package gateway_test

// Fuzz targets of the two body decoders a caller reaches first: the follow-up decoder and the
// execute path (DecodeBody, then Prepare of every registered capability). Neither may panic, and
// every refusal must be invalid_request. `go test` runs the seed corpora; run a target longer
// with, for example, go test -run '^$' -fuzz FuzzFollowUpDecoder -fuzztime 30s -parallel 1 ./gateway/

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
)

var (
	searchIDPattern = regexp.MustCompile(`^srch_[A-Za-z0-9]{16}$`)
	recordIDPattern = regexp.MustCompile(`^rec_[A-Za-z0-9]{16}$`)
)

// trickyBodies are bodies every decoder must survive.
var trickyBodies = []string{
	``, ` `, `{`, `}`, `{}`, `[]`, `null`, `true`, `1`, `"x"`, `{}{}`, `{} x`, `{"a":1}}`,
	"\xef\xbb\xbf{}",       // byte order mark
	`{"a":1,"a":2}`,        // duplicate keys
	`{"a":"\u0000"}`,       // NUL
	`{"a":"\ud800"}`,       // lone surrogate
	"{\"a\":\"\xff\xfe\"}", // invalid UTF-8
	`{"a":1e400}`, `{"a":-0}`, `{"a":1.0}`, `{"a":0.1e-400}`, `{"a":99999999999999999999999999999}`,
	`{"a":NaN}`, `{"a":Infinity}`, `{"a":01}`, `{"a":.5}`, `{"a":+1}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	strings.Repeat(`{"a":`, 2000) + `1` + strings.Repeat(`}`, 2000),
	strings.Repeat(`[`, 20000),
	`{"__proto__":{}}`, `{"constructor":{"prototype":{}}}`,
	`{"":""}`, `{"\u00e9":1}`,
}

func FuzzFollowUpDecoder(f *testing.F) {
	valid := []string{
		`{"search_id":"srch_0123456789abcdef","action":"more"}`,
		`{"search_id":"srch_0123456789ABCDEF","action":"update","params":{"query":"x","num":null}}`,
		`{"search_id":"srch_0123456789abcdef","action":"update"}`,
		`{"record_id":"rec_0123456789abcdef","action":"details"}`,
		`{"record_id":"rec_0123456789abcdef","search_id":"srch_0123456789abcdef","action":"details"}`,
		`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("a", 40) + `"}`,
		`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("é", 40) + `"}`,
	}
	tricky := []string{
		`{"action":"more"}`,
		`{"search_id":"srch_0123456789abcdef"}`,
		`{"search_id":"","action":"more"}`,
		`{"search_id":"srch_0123456789abcde","action":"more"}`,
		`{"search_id":"srch_0123456789abcdef\n","action":"more"}`,
		`{"search_id":"srch_0123456789abcdeé","action":"more"}`,
		`{"record_id":"rec_0123456789abcdef","action":""}`,
		`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("a", 41) + `"}`,
		`{"record_id":"rec_0123456789abcdef","action":1}`,
		`{"record_id":"rec_0123456789abcdef","action":null}`,
		`{"record_id":["rec_0123456789abcdef"],"action":"details"}`,
		`{"search_id":"srch_0123456789abcdef","action":"update","params":[]}`,
		`{"search_id":"srch_0123456789abcdef","action":"update","params":"x"}`,
		`{"search_id":"srch_0123456789abcdef","action":"more","page":2}`,
		`{"search_id":"srch_0123456789abcdef","action":"more","SEARCH_ID":"x"}`,
		`{"search_id":"srch_0123456789abcdef","action":"more"} {"x":1}`,
	}
	for _, s := range append(append(valid, tricky...), trickyBodies...) {
		f.Add([]byte(s))
	}
	for _, v := range hostileValues {
		f.Add([]byte(`{"search_id":"srch_0123456789abcdef","action":"update","params":{"query":` + string(v) + `,"num":` + string(v) + `}}`))
		f.Add([]byte(`{"record_id":` + string(v) + `,"action":"details"}`))
		f.Add([]byte(`{"search_id":"srch_0123456789abcdef","action":` + string(v) + `}`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := gateway.DecodeFollowUp(body)
		if err != nil {
			wantInvalidRequest(t, err)
			return
		}
		// An accepted body satisfies the spec's FollowUpRequest (2.5) and names a target.
		for k := range req {
			switch k {
			case "action", "search_id", "record_id", "params":
			default:
				t.Fatalf("accepted unknown key %q in %q", k, body)
			}
		}
		action, ok := req["action"].(string)
		if n := utf8.RuneCountInString(action); !ok || n < 1 || n > 40 {
			t.Fatalf("accepted action %#v in %q", req["action"], body)
		}
		sid, hasSID := req["search_id"]
		rid, hasRID := req["record_id"]
		if !hasSID && !hasRID {
			t.Fatalf("accepted a body with neither search_id nor record_id: %q", body)
		}
		if s, ok := sid.(string); hasSID && (!ok || !searchIDPattern.MatchString(s)) {
			t.Fatalf("accepted search_id %#v", sid)
		}
		if s, ok := rid.(string); hasRID && (!ok || !recordIDPattern.MatchString(s)) {
			t.Fatalf("accepted record_id %#v", rid)
		}
		if p, has := req["params"]; has {
			if _, ok := p.(map[string]any); !ok {
				t.Fatalf("accepted params %#v", p)
			}
		}
	})
}

// awkwardValues replace one field of an example at a time (TestExecuteBodyAwkwardValues).
var awkwardValues = []json.RawMessage{json.RawMessage(`null`), json.RawMessage(`""`), json.RawMessage(`" "`), json.RawMessage(`1e400`),
	json.RawMessage(`-1`), json.RawMessage(`0.5`), json.RawMessage(`[]`), json.RawMessage(`{}`), json.RawMessage(`true`),
	json.RawMessage(`99999999999999999999999`), json.RawMessage(`"\u0000"`), json.RawMessage(`[null]`), json.RawMessage(`{"lat":"x"}`)}

// hostileValues are what a stored or forwarded string or number must survive: NUL bytes, invalid
// UTF-8, lone surrogates, numbers past every integer and float range. They replace every field
// of the examples, in the decoder sweep and over HTTP (TestHostileValuesNever5xx).
var hostileValues = []json.RawMessage{
	json.RawMessage(`"a\u0000b"`), json.RawMessage(`"\u0000"`), json.RawMessage("\"\xff\xfe\xfd\""), json.RawMessage("\"ok\xc3\x28\""),
	json.RawMessage(`"\ud800"`), json.RawMessage(`"\udfff\ud800"`),
	json.RawMessage(`1e308`), json.RawMessage(`-1e308`), json.RawMessage(`1e-400`), json.RawMessage(`4294967296`),
	json.RawMessage(`9223372036854775807`), json.RawMessage(`9223372036854775808`), json.RawMessage(`-9223372036854775809`),
	json.RawMessage(`18446744073709551616`), json.RawMessage(`123456789012345678901234567890e10`),
	json.RawMessage(`["a\u0000"]`), json.RawMessage(`{"a":"\u0000"}`),
}

// previousQueries prepares each capability's first example: the stored query of an update.
func previousQueries(tb testing.TB, caps []*providers.Capability) map[string]providers.Request {
	tb.Helper()
	previous := map[string]providers.Request{}
	for _, cp := range caps {
		if len(cp.Examples) == 0 {
			continue
		}
		b, _ := json.Marshal(cp.Examples[0].Body)
		req, err := providers.DecodeBody(b)
		if err != nil {
			tb.Fatal(err)
		}
		if previous[cp.ID], err = cp.Prepare(req, nil); err != nil {
			tb.Fatalf("%s: its first example does not validate: %v", cp.ID, err)
		}
	}
	return previous
}

// FuzzExecuteBody seeds with the tricky bodies and each capability's first example: a small
// corpus, so the baseline run fits a few seconds of fuzzing. The exhaustive sweep of every example
// with awkward field values is TestExecuteBodyAwkwardValues.
func FuzzExecuteBody(f *testing.F) {
	caps := registry.Capabilities()
	for _, s := range trickyBodies {
		f.Add([]byte(s))
	}
	for _, v := range hostileValues {
		f.Add([]byte(`{"query":` + string(v) + `,"num":` + string(v) + `,"page":` + string(v) + `}`))
	}
	for _, cp := range caps {
		if len(cp.Examples) > 0 {
			b, err := json.Marshal(cp.Examples[0].Body)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	previous := previousQueries(f, caps)
	f.Fuzz(func(t *testing.T, body []byte) { checkExecuteBody(t, caps, previous, body) })
}

// TestExecuteBodyAwkwardValues runs the fuzz target's check on every example of every capability
// (against every capability), and on each example with each of its fields replaced by an awkward
// value (against the example's own capability, the one that knows the field: against all of them
// it was 36 times the work, 49 s of the gateway package's race-detector run, for fields the
// others refuse by name before they read the value; FuzzExecuteBody crosses them).
func TestExecuteBodyAwkwardValues(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	caps := registry.Capabilities()
	previous := previousQueries(t, caps)
	for _, cp := range caps {
		for _, ex := range cp.Examples {
			b, err := json.Marshal(ex.Body)
			if err != nil {
				t.Fatal(err)
			}
			checkExecuteBody(t, caps, previous, b)
			for k := range ex.Body.Request() {
				for _, v := range append(append([]json.RawMessage{}, awkwardValues...), hostileValues...) {
					m := map[string]any{}
					for k2, v2 := range ex.Body.Request() {
						m[k2] = v2
					}
					m[k] = v
					b, _ := json.Marshal(m)
					checkExecuteBody(t, []*providers.Capability{cp}, previous, b)
				}
			}
		}
	}
}

// checkExecuteBody decodes a body and prepares it for every capability, as execute and as update
// params: nothing panics, every refusal is invalid_request, and a prepared request stays valid.
func checkExecuteBody(t *testing.T, caps []*providers.Capability, previous map[string]providers.Request, body []byte) {
	t.Helper()
	if _, err := providers.DecodeBody(body); err != nil {
		wantInvalidRequest(t, err)
		return
	}
	for _, cp := range caps {
		// Prepare fills defaults into the request: decode afresh for every capability.
		req, _ := providers.DecodeBody(body)
		prepared, err := cp.Prepare(req, nil)
		if err != nil {
			wantInvalidRequest(t, err)
		} else {
			// A prepared request stays valid: preparing it again (as a stored query is) succeeds.
			b, err := json.Marshal(prepared)
			if err != nil {
				t.Fatalf("%s: prepared request does not encode: %v", cp.ID, err)
			}
			again, err := providers.DecodeBody(b)
			if err == nil {
				_, err = cp.Prepare(again, nil)
			}
			if err != nil {
				t.Fatalf("%s: a prepared request is refused when prepared again: %v\nbody %q", cp.ID, err, body)
			}
		}
		// The same body as update params, merged into a stored query.
		prev, ok := previous[cp.ID]
		if !ok {
			continue
		}
		params, _ := providers.DecodeBody(body)
		merged := mergeForFuzz(cp, prev.Clone(), params)
		if _, err := cp.Prepare(merged, &providers.Update{Previous: prev.Clone(), Params: params}); err != nil {
			wantInvalidRequest(t, err)
		}
	}
}

// mergeForFuzz folds params into a stored query the way the gateway does: the capability's
// Merge, or a shallow merge in which null removes a key.
func mergeForFuzz(cp *providers.Capability, prev, params providers.Request) providers.Request {
	if cp.Merge != nil {
		return cp.Merge(prev, params)
	}
	out := prev.Clone()
	for k, v := range params {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

func wantInvalidRequest(t *testing.T, err error) {
	t.Helper()
	e, ok := err.(*providers.Error)
	if !ok {
		t.Fatalf("error %T %v is not a *providers.Error", err, err)
	}
	if e.Code != providers.CodeInvalidRequest || e.HTTPStatus() != 400 || e.Message == "" {
		t.Fatalf("refusal %s %d %q, want invalid_request 400 with a message", e.Code, e.HTTPStatus(), e.Message)
	}
}

// objectWith writes a JSON object whose field key holds raw (bytes as they are, even invalid
// UTF-8) and whose other fields are the example's.
func objectWith(tb testing.TB, ex map[string]any, key string, raw json.RawMessage) []byte {
	tb.Helper()
	var b strings.Builder
	b.WriteByte('{')
	first := true
	field := func(k string, v []byte) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	for k, v := range ex {
		if k == key {
			continue
		}
		vb, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		field(k, vb)
	}
	field(key, raw)
	b.WriteByte('}')
	return []byte(b.String())
}

// serverFault tells whether an answer is the gateway's own failure: internal_error, or
// service_unavailable (the store failing on input it should have refused). A provider_error or
// provider_timeout is the (sandbox) upstream's answer to a query it has no recording of.
func serverFault(r *gatewaytest.Response) bool {
	if r.Status < 500 {
		return false
	}
	code := r.ErrorCode()
	return code != string(providers.CodeProviderError) && code != string(providers.CodeProviderTimeout) &&
		code != string(providers.CodeCapabilityUnavailable)
}
