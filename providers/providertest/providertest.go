// Package providertest holds what every capability package's tests share: a client pointed at an
// httptest fake of the real upstream, one-call helpers that validate a body exactly as the
// gateway does and run a page, sandbox runs, and golden files (-update rewrites them).
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The version and contact of the test client, and the User-Agent every fake upstream sees.
const (
	version   = "test"
	contact   = "tests@example.com"
	UserAgent = "capgate/" + version + " (+" + contact + ")"
)

// Client builds an upstream client for the providers; fakes maps a provider id to the handler of
// an httptest server standing in for that upstream (the others keep their defaults).
func Client(tb testing.TB, provs []*providers.Provider, fakes map[string]http.Handler, keys map[string]string) *providers.Client {
	tb.Helper()
	c := providers.NewClient(provs, providers.ClientOptions{Version: version, Contact: contact,
		BreakerTimeout: 200 * time.Millisecond})
	for id, h := range fakes {
		srv := httptest.NewServer(h)
		tb.Cleanup(srv.Close)
		if err := c.Configure(id, providers.Setting{URL: srv.URL, Key: keys[id]}); err != nil {
			tb.Fatal(err)
		}
	}
	for id, k := range keys {
		if _, faked := fakes[id]; !faked {
			s := c.Setting(id)
			s.Key = k
			if err := c.Configure(id, s); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return c
}

// Prepare decodes and validates a body as the gateway does (schema, defaults, rules).
func Prepare(tb testing.TB, c *providers.Capability, body string) (providers.Request, error) {
	tb.Helper()
	req, err := providers.DecodeBody([]byte(body))
	if err != nil {
		return nil, err
	}
	return c.Prepare(req, nil)
}

// Execute validates the body and runs the first page in the given mode.
func Execute(tb testing.TB, client *providers.Client, c *providers.Capability, mode providers.Mode, body string) (*providers.Page, error) {
	tb.Helper()
	req, err := Prepare(tb, c, body)
	if err != nil {
		tb.Fatalf("body %s does not validate: %v", body, err)
	}
	return ExecuteState(tb, client, c, mode, req, nil)
}

// ExecuteState runs one page of a prepared request from a paging state (nil for the first page).
func ExecuteState(tb testing.TB, client *providers.Client, c *providers.Capability, mode providers.Mode, req providers.Request, state json.RawMessage) (*providers.Page, error) {
	tb.Helper()
	d := c.Deadline
	if d == 0 {
		d = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.Execute(ctx, providers.NewCall(c, req, state, mode, "tnt_test", client))
}

// Action runs a record action (lookup kind) for a record of a page.
func Action(tb testing.TB, client *providers.Client, c *providers.Capability, mode providers.Mode, req providers.Request, name string, rec *providers.Record) (*providers.Detail, error) {
	tb.Helper()
	a, ok := c.Action(name)
	if !ok {
		tb.Fatalf("capability %s has no action %s", c.ID, name)
	}
	if a.Kind == providers.ActionStored {
		d, ok := rec.Stored[name]
		if !ok {
			tb.Fatalf("record %q has no stored %s detail", rec.Title, name)
		}
		return d, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return a.Run(ctx, providers.NewCall(c, req, nil, mode, "tnt_test", client), AsStored(tb, rec))
}

// AsStored is a record as a record action gets it back from the gateway's session: its typed
// data rendered and read back as Fields (numbers as json.Number).
func AsStored(tb testing.TB, rec *providers.Record) *providers.Record {
	tb.Helper()
	if rec.Data == nil {
		return rec
	}
	out := *rec
	out.Data, out.Fields = nil, map[string]any{}
	if m, ok := canonical(tb, rec.Data).(map[string]any); ok {
		for k, v := range m {
			out.Fields[k] = v
		}
	}
	for k, v := range rec.Fields {
		out.Fields[k] = canonical(tb, v)
	}
	return &out
}

// FieldsOf is a record's own keys as the gateway stores them (typed data and free-form fields
// together; numbers as json.Number), for tests that look at one key.
func FieldsOf(tb testing.TB, rec *providers.Record) map[string]any {
	tb.Helper()
	return AsStored(tb, rec).Fields
}

// Native is a record's own keys with their Go values, as a map-built record held them: typed
// data's fields by json name (pointers followed; nil, and empty omitempty values, left out) and
// the free-form fields beside them.
func Native(rec *providers.Record) map[string]any {
	out := map[string]any{}
	if rec.Data != nil {
		v := reflect.ValueOf(rec.Data)
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			fv := v.Field(i)
			if strings.Contains(opts, "omitempty") && fv.IsZero() && fv.Kind() != reflect.Struct {
				continue
			}
			if (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && strings.Contains(opts, "omitempty") && fv.Len() == 0 {
				continue
			}
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			out[name] = fv.Interface()
		}
	}
	for k, v := range rec.Fields {
		out[k] = v
	}
	return out
}

// canonical is v as JSON decodes it (objects as maps, numbers as json.Number), so a typed value
// compares and renders in key order, as the gateway renders it.
func canonical(tb testing.TB, v any) any {
	tb.Helper()
	out, err := decodeCanonical(v)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func decodeCanonical(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}

// mustCanonical is decodeCanonical for golden renderings, where a value that cannot be encoded
// is the test's own mistake.
func mustCanonical(v any) any {
	out, err := decodeCanonical(v)
	if err != nil {
		panic(fmt.Sprintf("providertest: %v", err))
	}
	return out
}

// RecordsJSON renders records as the gateway shows them (without ids), for golden files.
func RecordsJSON(page *providers.Page) any {
	out := make([]map[string]any, 0, len(page.Records))
	for _, r := range page.Records {
		m := map[string]any{"title": r.Title}
		if r.URL != "" {
			m["url"] = r.URL
		}
		if r.Snippet != "" {
			m["snippet"] = r.Snippet
		}
		if r.Data != nil {
			for k, v := range mustCanonical(r.Data).(map[string]any) {
				if _, base := m[k]; !base && k != "record_id" && k != "title" && k != "url" && k != "snippet" {
					m[k] = v
				}
			}
		}
		for k, v := range r.Fields {
			m[k] = v
		}
		if len(r.Ref) > 0 {
			m["_ref"] = json.RawMessage(r.Ref)
		}
		if len(r.Stored) > 0 {
			m["_stored"] = r.Stored
		}
		out = append(out, m)
	}
	return map[string]any{"records": out, "has_more": page.HasMore, "next": json.RawMessage(orNull(page.Next)), "notes": page.Notes, "filters": page.Filters}
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Golden compares v, rendered as indented JSON, with testdata/<name>.golden.json; -update rewrites it.
func Golden(tb testing.TB, name string, v any) {
	tb.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("golden file %s: %v (run go test -update to create it)", path, err)
	}
	if !bytes.Equal(want, got) {
		tb.Errorf("%s differs from its golden file; got:\n%s", path, got)
	}
}

// Fixture reads testdata/<name>.
func Fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Body is what a fake upstream answers: literal JSON, XML or HTML as written, anything else the
// testdata fixture of that name.
func Body(tb testing.TB, body string) []byte {
	tb.Helper()
	if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") || strings.HasPrefix(body, "<") {
		return []byte(body)
	}
	return Fixture(tb, body)
}

// ErrorCode returns the vocabulary code of err, or "".
func ErrorCode(err error) providers.Code {
	if e, ok := providers.AsError(err); ok {
		return e.Code
	}
	return ""
}

// ViolationPaths lists the violation paths of an invalid_request error.
func ViolationPaths(err error) []string {
	e, ok := providers.AsError(err)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(e.Violations))
	for _, v := range e.Violations {
		out = append(out, v.Path)
	}
	return out
}
