package e2e

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/internal/apicontract"
)

// Every answer the e2e tests receive on the API surface (/v1, /healthz, /readyz) is checked
// against the OpenAPI document the instance itself serves (internal/apicontract: libopenapi and
// libopenapi-validator): a status, header or field the document does not list fails the test.
// Console pages and /metrics are not part of the API document and are not checked.

var (
	contractMu  sync.Mutex
	contractFor = map[string]*apicontract.Checker{} // by instance base URL
	checkerFor  = map[string]*apicontract.Checker{} // by document, less the instance's own URLs
)

// contract is the checker for the instance's own document.
func (in *instance) contract(t *testing.T) *apicontract.Checker {
	t.Helper()
	contractMu.Lock()
	defer contractMu.Unlock()
	if c, ok := contractFor[in.Base]; ok {
		return c
	}
	res, err := httpClient.Get(in.Base + "/v1/openapi.json")
	if err != nil {
		t.Fatalf("GET /v1/openapi.json: %v", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json: %d %v", res.StatusCode, err)
	}
	key := strings.ReplaceAll(stripServers(string(raw)), in.Base, "")
	c, ok := checkerFor[key]
	if !ok {
		if c, err = apicontract.New(raw); err != nil {
			t.Fatalf("the served OpenAPI document: %v", err)
		}
		checkerFor[key] = c
	}
	contractFor[in.Base] = c
	return c
}

// stripServers drops the servers entry. With it, and the instance's base URL removed wherever
// else it appears (the contact and licence links), every instance of a binary serves one
// document and shares one checker: building one takes about 11 s under the race detector, and
// each deployment built its own.
func stripServers(doc string) string {
	i := strings.Index(doc, `"servers":`)
	if i < 0 {
		return doc
	}
	j := strings.Index(doc[i:], "]")
	if j < 0 {
		return doc
	}
	return doc[:i] + doc[i+j+1:]
}

// checkContract validates one answer of the API surface against the document.
func (in *instance) checkContract(t *testing.T, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	p := req.URL.Path
	if !strings.HasPrefix(p, "/v1/") && p != "/healthz" && p != "/readyz" {
		return
	}
	if err := in.contract(t).Check(req, status, header, body); err != nil {
		t.Errorf("contract: %v\nbody: %.2000s", err, body)
	}
}

// contractTransport checks every answer a client (the generated one) receives.
func (in *instance) contractTransport(t *testing.T) http.RoundTripper {
	c := in.contract(t)
	return c.Transport(nil, func(err error) { t.Errorf("contract: %v", err) })
}
