//go:build !race

package consistency_test

// Test mode consistent with the request (issue 36), second part: the package, legal, reading
// and filings capabilities. Each capability answers consistencyRequests generated requests,
// each checked against the request — identities echoed, filters obeyed, page sizes kept, more
// advancing, dates refused as live refuses them — and every fifth one is asked again by another
// tenant (no shared cache) and must answer the same records.

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
)

// consistencyCaseB is consistencyCase with the status a request must get (200 unless refused).
type consistencyCaseB struct {
	id     string
	gen    func(r *rand.Rand, i int) map[string]any
	status func(body map[string]any) int
	check  func(t *testing.T, c *checker, body map[string]any, resp *gatewaytest.Response)
}

// sandboxFilers are the companies of the sandbox's recorded ticker map (EDGAR's names).
var sandboxFilers = map[string][2]string{
	"AAPL": {"320193", "Apple Inc."}, "NVDA": {"1045810", "NVIDIA CORP"}, "MSFT": {"789019", "MICROSOFT CORP"},
	"AMZN": {"1018724", "AMAZON COM INC"}, "META": {"1326801", "Meta Platforms, Inc."}, "TSLA": {"1318605", "Tesla, Inc."},
	"BRK-B": {"1067983", "BERKSHIRE HATHAWAY INC"}, "GOOGL": {"1652044", "Alphabet Inc."},
}

// sameRecords strips what differs between two askings of one request (record ids, retrieval
// times, cache flags) and compares the records.
func sameRecords(a, b *gatewaytest.Response) bool {
	strip := func(r *gatewaytest.Response) []map[string]any {
		var out []map[string]any
		for _, m := range r.Results() {
			c := map[string]any{}
			for k, v := range m {
				if k != "record_id" && k != "fetched_at" && k != "cache_hit" && k != "retrieved_at" {
					c[k] = v
				}
			}
			out = append(out, c)
		}
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

func firstWord(q string) string {
	w := providers.QueryWords(q)
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

func consistencyCasesB() []consistencyCaseB {
	words := []string{"state management", "date formatting", "csv parser", "http retry", "image resize", "markdown",
		"rate limiter", "colour contrast", "graph layout", "pdf text", "yaml schema", "websocket client"}
	packages := []string{"flask", "numpy", "react", "left-pad-sbx", "vue", "lodash", "pandas", "fastapi", "my-tool", "chalk", "zod", "attrs"}
	topics := []string{"qualified immunity", "excessive force", "copyright fair use", "wiretapping", "free speech schools",
		"search and seizure", "antitrust tying", "due process"}
	hosts := []string{"blog.acme-tools.com", "news.sandbox-daily.org", "docs.widgets.io", "www.harbour-lights.net", "research.example-uni.edu"}
	ok := func(map[string]any) int { return http.StatusOK }
	return []consistencyCaseB{
		{"jspkg.search", func(r *rand.Rand, i int) map[string]any {
			text := pick(r, words)
			if i%4 == 1 {
				text += " keywords:" + pick(r, []string{"cli", "browser", "esm"})
			}
			b := map[string]any{"text": text, "size": 1 + r.IntN(10)}
			if i%5 == 2 {
				b["from"] = r.IntN(5)
			}
			return b
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			text := body["text"].(string)
			recs := r.Results()
			if len(recs) == 0 || len(recs) > int(numOr(body["size"])) {
				t.Errorf("%v: %d packages", body, len(recs))
			}
			kw := providers.Qualifier(text, "keywords")
			for _, m := range recs {
				if !strings.Contains(str(m["package"]), firstWord(text)) {
					t.Errorf("%v: package %q", body, m["package"])
				}
				kws := fmt.Sprint(m["keywords"])
				for _, w := range providers.QueryWords(text) {
					if !strings.Contains(kws, w) {
						t.Errorf("%v: %q has keywords %s", body, m["package"], kws)
					}
				}
				if kw != "" && !strings.Contains(kws, kw) {
					t.Errorf("%v: %q has keywords %s", body, m["package"], kws)
				}
				if s := fmt.Sprint(m); strings.Contains(s, "yargs") || strings.Contains(s, "minimist") {
					t.Errorf("%v: a recorded package's identity: %s", body, s)
				}
			}
			checkMoreAdvances(t, c, body, r, "package")
		}},
		{"jspkg.downloads", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"package": pick(r, packages), "kind": []string{"point", "range"}[i%2]}
			switch i % 5 {
			case 0:
				b["period"] = pick(r, []string{"last-day", "last-week", "last-month"})
			case 1:
				b["period"] = day(-2 - r.IntN(400))
			case 2:
				s := -10 - r.IntN(400)
				b["period"] = day(s) + ":" + day(s+r.IntN(9))
			case 3:
				b["period"] = day(2 + r.IntN(100)) // the future: refused as live refuses it
			}
			return b
		}, func(body map[string]any) int {
			if p, _ := body["period"].(string); strings.HasPrefix(p, "2") && p > day(0) {
				return http.StatusBadRequest
			}
			return http.StatusOK
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			if r.Status != http.StatusOK {
				return
			}
			recs := r.Results()
			if len(recs) != 1 {
				t.Fatalf("%v: %d records", body, len(recs))
			}
			m := recs[0]
			if m["package"] != body["package"] || m["kind"] != body["kind"] {
				t.Errorf("%v: %v %v", body, m["package"], m["kind"])
			}
			start, end := str(m["start"]), str(m["end"])
			if p, _ := body["period"].(string); strings.HasPrefix(p, "2") {
				a, b, isRange := strings.Cut(p, ":")
				if !isRange {
					b = a
				}
				if start != a || end != b {
					t.Errorf("%v: %s to %s", body, start, end)
				}
			}
			if end > day(-1) || start > end {
				t.Errorf("%v: counts from %s to %s", body, start, end)
			}
			if body["kind"] == "range" {
				s, _ := time.Parse(time.DateOnly, start)
				e, _ := time.Parse(time.DateOnly, end)
				days, _ := m["downloads"].([]any)
				if len(days) != int(e.Sub(s).Hours()/24)+1 {
					t.Errorf("%v: %d days from %s to %s", body, len(days), start, end)
				}
			} else if n, ok := num(m["downloads"]); !ok || n < 0 {
				t.Errorf("%v: downloads %v", body, m["downloads"])
			}
		}},
		{"pypkg.search", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"query": pick(r, words) + []string{"", " library", " for python"}[i%3], "num": 1 + r.IntN(10)}
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 || len(recs) > int(numOr(body["num"])) {
				t.Errorf("%v: %d candidates", body, len(recs))
			}
			w := firstWord(body["query"].(string))
			for _, m := range recs {
				if !strings.Contains(str(m["package"]), w) || !strings.Contains(str(m["url"]), "/project/"+str(m["package"])+"/") {
					t.Errorf("%v: candidate %q at %v", body, m["package"], m["url"])
				}
				if s := fmt.Sprint(m); strings.Contains(s, "requests") || strings.Contains(s, "httpx") {
					t.Errorf("%v: a recorded project's identity: %s", body, s)
				}
			}
			if len(recs) > 0 && c.e != nil {
				d := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"record_id": recs[0]["record_id"], "action": "details"})
				if d.Status != http.StatusOK || !strings.Contains(string(d.Body), str(recs[0]["package"])) {
					t.Errorf("%v: details of %q: %d %.300s", body, recs[0]["package"], d.Status, d.Body)
				}
			}
			checkMoreAdvances(t, c, body, r, "package")
		}},
		{"pypkg.versions", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"package": pick(r, packages) + []string{"", "-x", "2"}[i%3]}
			if i%2 == 0 {
				b["num"] = 1 + r.IntN(8)
			}
			if i%3 == 0 {
				b["include_yanked"] = true
			}
			return b
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no releases", body)
			}
			if n, ok := num(body["num"]); ok && len(recs) > int(n) {
				t.Errorf("%v: %d releases", body, len(recs))
			}
			pkg := body["package"].(string)
			for k, m := range recs {
				if !strings.Contains(str(m["title"]), pkg) || !strings.Contains(str(m["url"]), "/project/"+pkg+"/") {
					t.Errorf("%v: release %q at %v", body, m["title"], m["url"])
				}
				if body["include_yanked"] != true && m["yanked"] == true {
					t.Errorf("%v: a yanked release %v is listed", body, m["version"])
				}
				if k > 0 && str(recs[k-1]["upload_time"]) < str(m["upload_time"]) {
					t.Errorf("%v: %v listed before the newer %v", body, recs[k-1]["version"], m["version"])
				}
			}
		}},
		{"pypkg.downloads", func(r *rand.Rand, i int) map[string]any {
			return map[string]any{"package": pick(r, packages) + []string{"", "-x", "2"}[i%3], "kind": []string{"recent", "overall"}[i%2]}
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) != 1 || recs[0]["package"] != body["package"] || recs[0]["kind"] != body["kind"] {
				t.Fatalf("%v: %.300s", body, r.Body)
			}
			switch d := recs[0]["data"].(type) {
			case map[string]any:
				day, week, month := numOr(d["last_day"]), numOr(d["last_week"]), numOr(d["last_month"])
				if !(0 <= day && day <= week && week <= month) {
					t.Errorf("%v: day %v week %v month %v", body, day, week, month)
				}
			case []any:
				if len(d) == 0 || len(d) > 181 {
					t.Fatalf("%v: %d days", body, len(d))
				}
				last := str(d[len(d)-1].(map[string]any)["date"])
				first := str(d[0].(map[string]any)["date"])
				if last > day(0) || last < day(-4) || first < day(-185) {
					t.Errorf("%v: daily history from %s to %s", body, first, last)
				}
			default:
				t.Errorf("%v: data %T", body, d)
			}
		}},
		{"legal.search", func(r *rand.Rand, i int) map[string]any {
			s := map[string]any{"jurisdiction": "us", "query": pick(r, topics), "courts": []string{"all", "federal", "state"}[i%3]}
			if i%2 == 0 {
				from := 1950 + r.IntN(60)
				s["from_year"] = from
				if i%4 == 0 {
					s["to_year"] = from + r.IntN(15)
				}
			}
			if i%3 == 2 {
				s = map[string]any{"jurisdiction": "eu", "query": pick(r, topics)}
				if k := []string{"", "judgment", "legislation", "opinion"}[i%4]; k != "" {
					s["kind"] = k
				}
			}
			return map[string]any{"search": s, "num": 1 + r.IntN(5)}
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			s := body["search"].(map[string]any)
			recs := r.Results()
			if len(recs) == 0 || len(recs) > int(numOr(body["num"])) {
				t.Fatalf("%v: %d cases", body, len(recs))
			}
			if s["jurisdiction"] == "eu" {
				kinds := map[string][]string{"judgment": {"judgment"}, "legislation": {"regulation", "directive", "decision"},
					"opinion": {"advocate_general_opinion", "court_opinion"}}
				for k, m := range recs {
					title := strings.ToLower(str(m["title"]))
					for _, w := range strings.Fields(s["query"].(string)) {
						if !strings.Contains(title, w) {
							t.Errorf("%v: %q", body, m["title"])
						}
					}
					if want, ok := kinds[str(s["kind"])]; ok && !slices.Contains(want, str(m["document_kind"])) {
						t.Errorf("%v: a %v", body, m["document_kind"])
					}
					if k > 0 && str(recs[k-1]["date"]) < str(m["date"]) {
						t.Errorf("%v: %v listed before the newer %v", body, recs[k-1]["date"], m["date"])
					}
				}
				checkMoreAdvances(t, c, body, r, "identifier")
				return
			}
			federal := func(court string) bool {
				return strings.Contains(court, "United States") || strings.Contains(court, "Circuit") || strings.HasPrefix(court, "District Court")
			}
			for _, m := range recs {
				y, _ := strconv.Atoi(prefix(str(m["date"]), 4))
				if from, ok := num(s["from_year"]); ok && y < int(from) {
					t.Errorf("%v: a case of %d", body, y)
				}
				if to, ok := num(s["to_year"]); ok && y > int(to) {
					t.Errorf("%v: a case of %d", body, y)
				}
				court := str(m["court"])
				if (s["courts"] == "federal" && !federal(court)) || (s["courts"] == "state" && federal(court)) {
					t.Errorf("%v: a case of the %s", body, court)
				}
				if s := fmt.Sprint(m); strings.Contains(s, "Olmstead") || strings.Contains(s, "Katz") || strings.Contains(s, "Griswold") {
					t.Errorf("%v: a recorded case: %s", body, s)
				}
			}
			d := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"record_id": recs[0]["record_id"], "action": "details"})
			if d.Status != http.StatusOK || !strings.Contains(string(d.Body), s["query"].(string)) {
				t.Errorf("%v: the details do not name the query: %d %.400s", body, d.Status, d.Body)
			}
			checkMoreAdvances(t, c, body, r, "identifier")
		}},
		{"legal.read", func(r *rand.Rand, i int) map[string]any {
			item := fmt.Sprintf("usrep%03d%03d", 1+r.IntN(542), 1+r.IntN(999))
			if item == "usrep277438" {
				item = "usrep277439"
			}
			return map[string]any{"document": map[string]any{"source": "us_reports", "item_id": item}, "num": 1 + r.IntN(3)}
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			item := body["document"].(map[string]any)["item_id"].(string)
			vol, _ := strconv.Atoi(item[5:8])
			page, _ := strconv.Atoi(item[8:])
			cite := fmt.Sprintf("%d U.S. %d", vol, page)
			recs := r.Results()
			if len(recs) == 0 || len(recs) > int(numOr(body["num"])) {
				t.Fatalf("%v: %d sections", body, len(recs))
			}
			for k, m := range recs {
				if m["identifier"] != item || !strings.Contains(str(m["title"]), cite) {
					t.Errorf("%v: section %v of %v titled %q", body, m["section"], m["identifier"], m["title"])
				}
				if m["printed_page"] != strconv.Itoa(page+k) {
					t.Errorf("%v: section %d prints page %v", body, k+1, m["printed_page"])
				}
				if s := strings.ToLower(str(m["snippet"]) + str(m["title"])); strings.Contains(s, "olmstead") || strings.Contains(s, "277 u. s.") {
					t.Errorf("%v: the recorded case's text: %.200s", body, s)
				}
			}
			checkMoreAdvances(t, c, body, r, "section")
		}},
		{"web.read", func(r *rand.Rand, i int) map[string]any {
			slug := strings.ReplaceAll(pick(r, words), " ", "-")
			return map[string]any{"url": fmt.Sprintf("https://%s/%s/%s-%d", pick(r, hosts), []string{"blog", "guides", "articles"}[i%3], slug, i)}
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: nothing read", body)
			}
			u := body["url"].(string)
			host := strings.Split(u, "/")[2]
			slug := u[strings.LastIndex(u, "/")+1:]
			first := strings.Split(slug, "-")[0]
			if recs[0]["url"] != u && !strings.HasPrefix(str(recs[0]["url"]), u) {
				t.Errorf("%v: read %v", body, recs[0]["url"])
			}
			text := strings.ToLower(fmt.Sprint(recs))
			if !strings.Contains(text, host) || !strings.Contains(text, first) {
				t.Errorf("%v: the page names neither %s nor %q: %.300s", body, host, first, text)
			}
		}},
		{"companies.financials", func(r *rand.Rand, i int) map[string]any {
			tickers := []string{"AAPL", "NVDA", "MSFT", "AMZN", "META", "TSLA", "BRK-B", "GOOGL"}
			b := map[string]any{"num": 1 + r.IntN(5)}
			if i%4 == 3 {
				b["company"] = map[string]any{"cik": strconv.Itoa(1000 + r.IntN(2_000_000))}
			} else {
				b["company"] = map[string]any{"ticker": pick(r, tickers)}
			}
			if i%3 == 0 {
				b["forms"] = []any{pick(r, []string{"10-K", "10-Q"})}
			}
			if i%2 == 0 {
				b["filed_from"] = fmt.Sprintf("%d-%02d-01", 2022+r.IntN(3), 1+r.IntN(12))
			}
			return b
		}, ok, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			co := body["company"].(map[string]any)
			cik, name := str(co["cik"]), "Sandbox Filer "+str(co["cik"])
			if tk, ok := co["ticker"].(string); ok {
				cik, name = sandboxFilers[tk][0], sandboxFilers[tk][1]
			}
			recs := r.Results()
			if len(recs) > int(numOr(body["num"])) {
				t.Errorf("%v: %d filings", body, len(recs))
			}
			for _, m := range recs {
				if strings.TrimLeft(str(m["cik"]), "0") != cik || m["issuer"] != name {
					t.Errorf("%v: a filing of %v %q", body, m["cik"], m["issuer"])
				}
				if cik != "320193" && (strings.HasPrefix(str(m["primary_document"]), "aapl-") || strings.Contains(str(m["accession"]), "0000320193")) {
					t.Errorf("%v: a filing of the recorded filer: %v %v", body, m["accession"], m["primary_document"])
				}
				if f, ok := body["forms"].([]any); ok && !slices.Contains(f, m["form"]) {
					t.Errorf("%v: a %v", body, m["form"])
				}
				if from, ok := body["filed_from"].(string); ok && str(m["filed_at"]) < from {
					t.Errorf("%v: filed %v", body, m["filed_at"])
				}
			}
			checkMoreAdvances(t, c, body, r, "accession")
		}},
	}
}

func prefix(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

// TestTestModeIsConsistentWithTheRequestB is the property test of issue 36 for the package,
// legal, reading and filings capabilities (the music fallback's is in providers/music).
func TestTestModeIsConsistentWithTheRequestB(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: gatewaytest.Unlimited{}})
	for _, cc := range consistencyCasesB() {
		t.Run(cc.id, func(t *testing.T) {
			_, _, key := e.NewTenant("pro")
			_, _, again := e.NewTenant("pro")
			c := &checker{e: e, key: key}
			for i := range consistencyRequests {
				r := rand.New(rand.NewPCG(uint64(i), 3602))
				body := cc.gen(r, i)
				resp := e.Do(http.MethodPost, "/v1/capabilities/"+cc.id+"/execute", key, body)
				if want := cc.status(body); resp.Status != want {
					t.Fatalf("%v: want %d, got %d %s", body, want, resp.Status, resp.Body)
				}
				if resp.Status == http.StatusOK && !strings.Contains(fmt.Sprint(resp.JSON["notes"]), providers.SandboxNote) {
					t.Errorf("%v: no synthetic-answer note: %v", body, resp.JSON["notes"])
				}
				if i%5 == 0 && resp.Status == http.StatusOK {
					if r2 := e.Do(http.MethodPost, "/v1/capabilities/"+cc.id+"/execute", again, body); !sameRecords(resp, r2) {
						t.Errorf("%v: asked again, another answer:\n%s\n%s", body, resp.Body, r2.Body)
					}
				}
				cc.check(t, c, body, resp)
				if t.Failed() {
					return
				}
			}
		})
	}
}
