package providers

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
)

// SandboxRoute answers one upstream endpoint in the sandbox: Match sees the request (path and
// query), File names the fixture in the package's embedded sandbox folder.
type SandboxRoute struct {
	Method string // default GET
	Path   string // exact path, or a prefix when it ends with "*"
	// Match, when set, must also accept the request (for example a query parameter's value).
	Match  func(r *http.Request) bool
	File   string
	Status int // default 200
	Type   string
}

// SandboxHandler serves fixture files for the routes, first match wins; anything else is a 404
// with a JSON body, as an upstream would answer an unknown path.
func SandboxHandler(files fs.FS, routes ...SandboxRoute) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routes {
			if !routeMatches(rt.Method, rt.Path, rt.Match, r) {
				continue
			}
			b, err := fs.ReadFile(files, rt.File)
			if err != nil {
				http.Error(w, "sandbox fixture missing: "+rt.File, http.StatusInternalServerError)
				return
			}
			ct := rt.Type
			if ct == "" {
				ct = "application/json"
			}
			w.Header().Set("Content-Type", ct)
			status := rt.Status
			if status == 0 {
				status = http.StatusOK
			}
			w.WriteHeader(status)
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not found in the capgate sandbox"}`))
	})
}

// Generator builds an upstream's answer from the upstream request, the way the upstream would
// answer it, using the fixture the recorded routes chose as base material (fixture and status
// are the recorded answer: a 404 with the sandbox's JSON body when no route matched). It must be
// deterministic: the same request gives the same answer (SandboxRand seeds from the request).
type Generator func(r *http.Request, fixture []byte, status int) ([]byte, int)

// GeneratedRoute applies a Generator to the requests it matches (the same matching as SandboxRoute).
type GeneratedRoute struct {
	Method   string
	Path     string
	Match    func(r *http.Request) bool
	Generate Generator
	// Type is the answer's Content-Type when the generator changes it (default: the fixture's).
	Type string
}

// GeneratedSandbox wraps a recorded sandbox: the recorded routes choose a fixture, and the first
// generated route that matches the request rewrites it from the request. Requests no generated
// route matches get the recorded answer unchanged.
func GeneratedSandbox(recorded http.Handler, routes ...GeneratedRoute) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		rec := newRecorder()
		recorded.ServeHTTP(rec, r.Clone(r.Context()))
		for _, rt := range routes {
			restoreBody(r, body)
			if !routeMatches(rt.Method, rt.Path, rt.Match, r) {
				continue
			}
			restoreBody(r, body)
			out, status := rt.Generate(r, rec.body.Bytes(), rec.status)
			for k, vs := range rec.header {
				w.Header()[k] = vs
			}
			if rt.Type != "" {
				w.Header().Set("Content-Type", rt.Type)
			}
			if w.Header().Get("Content-Type") == "" {
				w.Header().Set("Content-Type", "application/json")
			}
			w.Header().Del("Content-Length")
			if status == 0 {
				status = http.StatusOK
			}
			w.WriteHeader(status)
			_, _ = w.Write(out)
			return
		}
		for k, vs := range rec.header {
			w.Header()[k] = vs
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes())
	})
}

func routeMatches(method, path string, match func(*http.Request) bool, r *http.Request) bool {
	if method == "" {
		method = http.MethodGet
	}
	if r.Method != method {
		return false
	}
	if strings.HasSuffix(path, "*") {
		if !strings.HasPrefix(r.URL.Path, strings.TrimSuffix(path, "*")) {
			return false
		}
	} else if path != "" && r.URL.Path != path {
		return false
	}
	return match == nil || match(r)
}

// readBody reads a request body once and puts it back, so the recorded routes, the generator and
// the seed can all read it.
func readBody(r *http.Request) []byte {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	restoreBody(r, b)
	return b
}

func restoreBody(r *http.Request, b []byte) {
	if b == nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// SandboxSeed is a hash of the upstream request (method, path, query without credentials, body):
// the seed that makes a generated answer the same for the same request.
func SandboxSeed(r *http.Request) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, r.Method+" "+r.URL.Path+"?")
	q := r.URL.Query()
	for _, k := range []string{"api_key", "key", "apikey", "token"} {
		q.Del(k)
	}
	_, _ = io.WriteString(h, q.Encode())
	_, _ = h.Write(readBody(r))
	return h.Sum64()
}

// SandboxRand is a random source seeded by SandboxSeed, plus an optional salt (a record index).
func SandboxRand(r *http.Request, salt ...uint64) *rand.Rand {
	s := uint64(0)
	for _, v := range salt {
		s = s*31 + v + 1
	}
	return rand.New(rand.NewPCG(SandboxSeed(r), s))
}

// SeedOf hashes strings into a seed (for answers that depend on one value, such as an id).
func SeedOf(parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = io.WriteString(h, p)
		_, _ = h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(h.Sum64(), 18))
}

// SandboxMiss is the reserved value of every capability family that answers, in test mode, the
// way the live upstream answers a miss (an unknown package, a place that does not exist): a
// package, repository or name containing sandbox-not-found, a place named Nowhere, and for
// numeric ids six or more nines (999999, usrep999999, CIK 9999999999).
const (
	SandboxMiss      = "sandbox-not-found"
	SandboxMissPlace = "Nowhere"
)

// IsSandboxMiss tells whether a requested value is a reserved miss: it is, or contains,
// sandbox-not-found, or it is the place Nowhere (any case, surrounding spaces ignored).
func IsSandboxMiss(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return strings.Contains(v, SandboxMiss) || v == strings.ToLower(SandboxMissPlace) ||
		strings.HasPrefix(v, strings.ToLower(SandboxMissPlace)+",") || isNinesID(v)
}

// isNinesID tells whether an id is the reserved miss of families whose ids are numbers and
// cannot hold a word: its digits (after a letter prefix such as usrep) are six or more nines.
func isNinesID(v string) bool {
	digits := strings.TrimLeft(v, "abcdefghijklmnopqrstuvwxyz")
	return len(digits) >= 6 && strings.Trim(digits, "9") == ""
}

// TitleCase capitalises the words of a query for generated titles ("left-pad" stays as is).
func TitleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 && r[0] >= 'a' && r[0] <= 'z' {
			r[0] -= 'a' - 'A'
		}
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// JSONObject decodes a fixture into a generic object keeping numbers exact; nil on failure.
func JSONObject(b []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

// JSONBytes encodes a generated answer.
func JSONBytes(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":"the sandbox could not encode its answer"}`)
	}
	return b
}

// ReplaceFold replaces every case-insensitive occurrence of old in s by repl.
func ReplaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	lower, lold := strings.ToLower(s), strings.ToLower(old)
	if len(lower) != len(s) {
		return strings.ReplaceAll(s, old, repl)
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, lold)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lower = s[i+len(old):], lower[i+len(old):]
	}
}

// RewriteStrings applies fn to every string of a decoded JSON value whose key is in keys (all
// keys when keys is empty), in place, and returns the value.
func RewriteStrings(v any, fn func(key, s string) string, keys ...string) any {
	var walk func(key string, v any) any
	walk = func(key string, v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				x[k] = walk(k, c)
			}
		case []any:
			for i, c := range x {
				x[i] = walk(key, c)
			}
		case string:
			if len(keys) == 0 || slices.Contains(keys, key) {
				return fn(key, x)
			}
		}
		return v
	}
	return walk("", v)
}

// generators are the generated routes of each provider's sandbox, by provider id. Each provider
// package registers its own from its sandbox file (RegisterGenerators in an init function), so
// the provider declarations stay as they are; the client applies them wherever it serves a
// provider's sandbox.
var generators = map[string][]GeneratedRoute{}

// RegisterGenerators adds generated routes to a provider's sandbox; call it from an init function.
func RegisterGenerators(providerID string, routes ...GeneratedRoute) {
	generators[providerID] = append(generators[providerID], routes...)
}

// SandboxOf is the provider's sandbox as test keys reach it: the recorded routes, rewritten by
// the provider's generators; nil when the provider has no sandbox.
func SandboxOf(p *Provider) http.Handler {
	if p.Sandbox == nil {
		return nil
	}
	if gs := generators[p.ID]; len(gs) > 0 {
		return GeneratedSandbox(p.Sandbox, gs...)
	}
	return p.Sandbox
}

// SandboxMissExample is one reserved miss, for the guide.
type SandboxMissExample struct {
	Capabilities string
	Value        string
	Answer       string
}

// SandboxMisses lists the reserved misses of the families, as the guide and docs/test-mode.md show them.
var SandboxMisses = []SandboxMissExample{
	{"every search (web, news, academic, books, classics, repo, jspkg, pypkg, music, social, video, recipes, fitness, realestate, shopping, jobs, places, patents, legal, scripture)",
		"a query containing `sandbox-not-found`", "200 without results, has_more false"},
	{"weather.forecast, navigation.route, navigation.matrix", "the place `Nowhere`", "400 invalid_request at the place's field"},
	{"jspkg.package, jspkg.downloads, pypkg.details, pypkg.versions", "the package (or version) `sandbox-not-found`", "400 invalid_request at /package (/version)"},
	{"pypkg.downloads", "the package `sandbox-not-found`", "404 not_found"},
	{"web.read (and the read action)", "a host containing `sandbox-not-found`, a single-label host, or one under .invalid, .test, .localhost, .local, .internal, .example", "400 invalid_request at /url: the host does not resolve"},
	{"companies.financials", "the CIK `9999999999`", "400 invalid_request at /company/cik"},
	{"legal.read", "the item `usrep999999`, the CELEX number `0SANDBOX-NOT-FOUND`, the case `999999`", "404 not_found"},
}
