// Package apicontract checks HTTP answers against the gateway's OpenAPI 3.1 document with
// libopenapi and libopenapi-validator: the status must be documented for the operation, the
// declared headers present and valid, and the body must match the documented schema (closed
// objects reject undocumented fields). An answer to a route the document does not list must be
// an error (4xx/5xx) carrying the error envelope. It links nothing of the product: the document
// is given as bytes (the gateway's GET /v1/openapi.json), so the e2e tests can use it as well.
package apicontract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Checker validates answers against one document. It is safe for concurrent use.
type Checker struct {
	mu       sync.Mutex // the validator caches compiled schemas; calls are serialised to be safe
	v        validator.Validator
	envelope *jsonschema.Schema
}

// Shared is New, built once per document for the whole process: building a checker takes
// seconds (about 11 under the race detector), and most test servers of a binary serve the same
// document.
func Shared(spec []byte) (*Checker, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if c, ok := shared[string(spec)]; ok {
		return c, nil
	}
	c, err := New(spec)
	if err != nil {
		return nil, err
	}
	shared[string(spec)] = c
	return c, nil
}

var (
	sharedMu sync.Mutex
	shared   = map[string]*Checker{}
)

// New loads the document, builds its OpenAPI 3.1 model and validates the document itself; any
// error of either step is returned.
func New(spec []byte) (*Checker, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("apicontract: load: %w", err)
	}
	if v := doc.GetVersion(); v != "3.1.0" {
		return nil, fmt.Errorf("apicontract: openapi %q, want 3.1.0", v)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		return nil, fmt.Errorf("apicontract: model: %w", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("apicontract: validator: %w", errors.Join(errs...))
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		return nil, fmt.Errorf("apicontract: the document is not valid OpenAPI 3.1: %s", describe(verrs))
	}
	env, err := compileEnvelope(spec)
	if err != nil {
		return nil, err
	}
	return &Checker{v: v, envelope: env}, nil
}

func compileEnvelope(spec []byte) (*jsonschema.Schema, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec))
	if err != nil {
		return nil, fmt.Errorf("apicontract: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///openapi.json", inst); err != nil {
		return nil, fmt.Errorf("apicontract: %w", err)
	}
	s, err := c.Compile("mem:///openapi.json#/components/schemas/ErrorEnvelope")
	if err != nil {
		return nil, fmt.Errorf("apicontract: the document has no usable ErrorEnvelope: %w", err)
	}
	return s, nil
}

func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Message)
		if e.Reason != "" {
			b.WriteString(" (" + e.Reason + ")")
		}
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, " [%s %s: %s]", se.FieldPath, se.KeywordLocation, se.Reason)
		}
	}
	return b.String()
}

// Check validates one answer: req is the request that was sent (its method and URL matter),
// status, header and body the answer. It returns nil when the answer matches the document.
func (c *Checker) Check(req *http.Request, status int, header http.Header, body []byte) error {
	res := &http.Response{StatusCode: status, Header: header.Clone(), Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	probe := req.Clone(req.Context())
	probe.Body = http.NoBody
	c.mu.Lock()
	ok, errs := c.v.ValidateHttpResponse(probe, res)
	c.mu.Unlock()
	if ok {
		return nil
	}
	if undocumentedRoute(errs) {
		if status < 400 {
			return fmt.Errorf("%s %s: status %d on a route the document does not list", req.Method, req.URL.Path, status)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("%s %s: the error answer is not JSON: %v", req.Method, req.URL.Path, err)
		}
		if err := c.envelope.Validate(inst); err != nil {
			return fmt.Errorf("%s %s: the error answer is not the error envelope: %v", req.Method, req.URL.Path, err)
		}
		return nil
	}
	return fmt.Errorf("%s %s → %d does not match the OpenAPI document: %s", req.Method, req.URL.Path, status, describe(errs))
}

// undocumentedRoute tells whether the validator found no operation for the request.
func undocumentedRoute(errs []*verrors.ValidationError) bool {
	if len(errs) == 0 {
		return false
	}
	for _, e := range errs {
		if e.ValidationType != helpers.PathValidation {
			return false
		}
	}
	return true
}

// Transport wraps base (nil: http.DefaultTransport) so every answer is checked; a mismatch is
// passed to report (for example testing.T.Errorf through a closure) and the answer is returned
// unchanged.
func (c *Checker) Transport(base http.RoundTripper, report func(error)) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper{c: c, base: base, report: report}
}

type roundTripper struct {
	c      *Checker
	base   http.RoundTripper
	report func(error)
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := rt.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if cerr := rt.c.Check(req, res.StatusCode, res.Header, body); cerr != nil {
		rt.report(cerr)
	}
	return res, nil
}
