package legalread

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestMain fixes the retrieval clock so golden files are stable.
func TestMain(m *testing.M) {
	now = func() time.Time { return time.Date(2026, 9, 24, 12, 0, 0, 0, time.UTC) }
	os.Exit(m.Run())
}

// hits records the requests a fake upstream received.
type hits = providertest.Upstream

// recorder makes h the fake answering with next, so the test can see what the adapter sent.
func recorder(h *hits, next http.HandlerFunc) http.Handler {
	h.SetAnswer(next)
	return h
}

// serveFile answers with a testdata file.
func serveFile(t *testing.T, name, contentType string) http.HandlerFunc {
	b := providertest.Fixture(t, name)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

// answer writes a fixed answer.
func answer(status int, contentType, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// liveRun validates a body and runs it in live mode against fakes.
func liveRun(t *testing.T, fakes map[string]http.Handler, keys map[string]string, body string) (*providers.Page, error) {
	t.Helper()
	client := providertest.Client(t, Providers(), fakes, keys)
	return providertest.Execute(t, client, Read, providers.ModeLive, body)
}

// specDetailKeys are the keys of the spec's details table.
var specDetailKeys = map[string]bool{"title": true, "identifier": true, "source": true, "source_class": true,
	"language": true, "source_url": true, "retrieved_at": true, "source_sha256": true, "extraction_method": true,
	"legal_status": true, "text": true, "anchors": true, "pdf_page": true, "printed_page": true, "section": true,
	"total_sections": true, "complete_document_available_through_more": true}

var requiredDetailKeys = []string{"title", "identifier", "source", "source_class", "language", "source_url",
	"retrieved_at", "source_sha256", "extraction_method", "legal_status", "text", "section", "total_sections",
	"complete_document_available_through_more"}

var specRecordKeys = map[string]bool{"identifier": true, "source_class": true, "language": true, "section": true,
	"total_sections": true, "pdf_page": true, "printed_page": true, "paragraph_anchors": true, "extraction_method": true}

// checkSections asserts what every legal.read answer promises: sections 1..n in order, each within
// the bound, the snippet being the section's text, record keys and stored details exactly as
// the spec lists them.
func checkSections(t *testing.T, page *providers.Page) {
	t.Helper()
	n := len(page.Records)
	if n == 0 {
		t.Fatal("no sections")
	}
	if page.HasMore || len(page.Next) > 0 {
		t.Fatalf("local paging returns the whole document at once: has_more %v next %s", page.HasMore, page.Next)
	}
	for i, r := range page.Records {
		if r.Title == "" || r.URL == "" {
			t.Fatalf("section %d: title %q url %q", i+1, r.Title, r.URL)
		}
		for k := range r.Fields {
			if !specRecordKeys[k] {
				t.Errorf("section %d: record key %q is not a legal.read key", i+1, k)
			}
		}
		for _, k := range []string{"identifier", "source_class", "section", "total_sections", "extraction_method", "language"} {
			if _, ok := providertest.Native(&r)[k]; !ok {
				t.Errorf("section %d: record key %s missing", i+1, k)
			}
		}
		if providertest.Native(&r)["section"] != i+1 || providertest.Native(&r)["total_sections"] != n {
			t.Errorf("section %d: section %v of %v", i+1, providertest.Native(&r)["section"], providertest.Native(&r)["total_sections"])
		}
		if c := utf8.RuneCountInString(r.Snippet); c == 0 || c > maxChunkRunes {
			t.Errorf("section %d holds %d characters (bound %d)", i+1, c, maxChunkRunes)
		}
		d, ok := r.Stored["details"]
		if !ok {
			t.Fatalf("section %d has no stored details", i+1)
		}
		b, _ := json.Marshal(d.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		for k := range m {
			if !specDetailKeys[k] {
				t.Errorf("section %d: details key %q is not in the spec", i+1, k)
			}
		}
		for _, k := range requiredDetailKeys {
			if v, ok := m[k]; !ok || v == "" {
				t.Errorf("section %d: details key %s missing or empty", i+1, k)
			}
		}
		if m["text"] != r.Snippet || m["legal_status"] != "not_assessed" || m["complete_document_available_through_more"] != true {
			t.Errorf("section %d: details text/legal_status/complete flag wrong: %v %v", i+1, m["legal_status"], m["complete_document_available_through_more"])
		}
		if m["section"] != float64(i+1) || m["total_sections"] != float64(n) {
			t.Errorf("section %d: details section %v of %v", i+1, m["section"], m["total_sections"])
		}
		if len(d.Links) == 0 {
			t.Errorf("section %d: details without links", i+1)
		}
	}
}

// anchorsOf returns a record's paragraph_anchors.
func anchorsOf(r providers.Record) []string {
	a, _ := providertest.Native(&r)["paragraph_anchors"].([]string)
	return a
}

var fakeHost = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// goldenLive compares a page read from httptest fakes with its golden file, the fakes' random
// address written as http://fake.
func goldenLive(t *testing.T, name string, page *providers.Page) {
	t.Helper()
	b, err := json.Marshal(providertest.RecordsJSON(page))
	if err != nil {
		t.Fatal(err)
	}
	providertest.Golden(t, name, json.RawMessage(fakeHost.ReplaceAll(b, []byte("http://fake"))))
}
