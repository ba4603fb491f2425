package apicontract

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const tinyDoc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {"/x": {"get": {"operationId": "getX", "responses": {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "string"}}}}}},
    "404": {"description": "no", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}}
  }}}},
  "components": {"schemas": {"ErrorEnvelope": {"type": "object", "required": ["error"], "properties": {"error": {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}}}}}
}`

func TestNewRefusesInvalidDocuments(t *testing.T) {
	for name, doc := range map[string]string{
		"not JSON":    `{`,
		"OpenAPI 3.0": strings.Replace(tinyDoc, `"3.1.0"`, `"3.0.3"`, 1),
		"no envelope": strings.Replace(tinyDoc, `"ErrorEnvelope": {`, `"Other": {`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New([]byte(doc)); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := New([]byte(tinyDoc)); err != nil {
		t.Fatal(err)
	}
}

// TestTransportReports: a client wrapped by Transport gets every answer unchanged and each
// mismatch is reported.
func TestTransportReports(t *testing.T) {
	c, err := New([]byte(tinyDoc))
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]struct {
		status int
		body   string
		ok     bool
	}{
		"/x?good":  {200, `{"a":"s"}`, true},
		"/x?type":  {200, `{"a":1}`, false},
		"/x?extra": {200, `{"a":"s","b":1}`, false},
		"/x?418":   {418, `{"error":{"code":"teapot"}}`, false},
		"/x?404":   {404, `{"error":{"code":"not_found"}}`, true},
		"/y":       {404, `{"error":{"code":"not_found"}}`, true},
		"/z":       {404, `not json`, false},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[r.URL.RequestURI()]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	defer srv.Close()
	for path, a := range answers {
		t.Run(path, func(t *testing.T) {
			var mu sync.Mutex
			var reported []error
			hc := &http.Client{Transport: c.Transport(nil, func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() })}
			res, err := hc.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != a.status {
				t.Errorf("status %d, want %d", res.StatusCode, a.status)
			}
			if ok := len(reported) == 0; ok != a.ok {
				t.Errorf("ok=%v, reported %v", a.ok, errors.Join(reported...))
			}
		})
	}
}
