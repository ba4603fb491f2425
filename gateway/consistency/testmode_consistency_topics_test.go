//go:build !race

package consistency_test

// Test mode looks like the world it stands in for (issue 36), the topic searches: generated
// requests of web, news, patents, trends, video, social, classics, fitness and scripture, each
// answer checked against the request — the asked words, authors, assignees, handles, phrases and
// references echoed as themselves, filters (dates, languages, muscles, equipment, durations) and
// orders obeyed, more advancing.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/gatewaytest"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/registry"
)

// hasWords tells whether every word of want appears in s (case-insensitively).
func hasWords(s, want string) bool {
	s = strings.ToLower(s)
	for _, w := range strings.Fields(strings.ToLower(want)) {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// recordTime reads a record's RFC 3339 time field.
func recordTime(t *testing.T, body map[string]any, m map[string]any, key string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, str(m[key]))
	if err != nil {
		t.Fatalf("%v: %s %q of %q", body, key, m[key], m["title"])
	}
	return at
}

// topicWords are queries of the topic searches, chosen to be none of the recorded ones.
var topicWords = []string{"sourdough starter", "heat pump", "tide pools", "quantum dots", "wool socks", "solar sails",
	"chess openings", "bonsai", "river otters", "vinyl records", "lighthouse", "glacier melt", "ramen broth", "typography"}

func consistencyCasesI36a() []consistencyCase {
	windows := map[string]time.Duration{"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour}
	ranges := []string{"", "day", "week", "month", "year"}
	return []consistencyCase{
		{"web.search", func(r *rand.Rand, i int) map[string]any {
			q := pick(r, topicWords)
			if i%4 == 1 {
				q = "site:" + pick(r, []string{"example.org", "docs.example.com", "wiki.example.net"}) + " " + q
			}
			if i%6 == 2 {
				q += " -" + pick(r, []string{"video", "shop"})
			}
			b := map[string]any{"query": q, "num": 1 + r.IntN(10)}
			if tr := ranges[i%len(ranges)]; tr != "" {
				b["time_range"] = tr
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			q := body["query"].(string)
			topic := providers.TopicWords(q)
			site := providers.QueryOperator(q, "site")
			recs := r.Results()
			if n, _ := num(body["num"]); len(recs) != int(n) {
				t.Errorf("%v: %d results", body, len(recs))
			}
			for k, m := range recs {
				if !hasWords(str(m["title"]), topic) {
					t.Errorf("%v: a result titled %q", body, m["title"])
				}
				if p, _ := num(m["position"]); int(p) != k+1 {
					t.Errorf("%v: result %d at position %v", body, k+1, m["position"])
				}
				if site != "" && !strings.HasPrefix(str(m["url"]), "https://"+site+"/") {
					t.Errorf("%v: a result at %q", body, m["url"])
				}
				if w, ok := windows[str(body["time_range"])]; ok {
					d, err := time.Parse("Jan 2, 2006", str(m["date"]))
					if err != nil || d.Before(time.Now().Add(-w-48*time.Hour)) || d.After(time.Now()) {
						t.Errorf("%v: %q dated %q", body, m["title"], m["date"])
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"news.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, topicWords), "num": 1 + r.IntN(10)}
			if tr := ranges[i%len(ranges)]; tr != "" {
				b["time_range"] = tr
			}
			if i%3 == 0 {
				b["country"], b["language"] = "GB", "en"
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no articles", body)
			}
			w, bounded := windows[str(body["time_range"])]
			var last time.Time
			for k, m := range recs {
				if !hasWords(str(m["title"]), body["query"].(string)) {
					t.Errorf("%v: an article titled %q", body, m["title"])
				}
				at := recordTime(t, body, m, "published_at")
				if at.After(time.Now().Add(time.Minute)) || (bounded && at.Before(time.Now().Add(-w-time.Hour))) {
					t.Errorf("%v: %q published %v", body, m["title"], at)
				}
				if k > 0 && at.After(last) {
					t.Errorf("%v: not newest first", body)
				}
				last = at
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"patents.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, topicWords), "num": 1 + r.IntN(12), "sort": []string{"relevance", "new", "old"}[i%3]}
			if i%2 == 0 {
				b["assignee"] = pick(r, []string{"Acme Robotics", "Nordlicht GmbH", "Kawa Industries"})
			}
			if i%3 == 1 {
				b["inventor"] = pick(r, []string{"Ada Quispe", "Jonas Weber", "Mei Lin"})
			}
			if i%4 == 0 {
				b["after"] = fmt.Sprintf("%s%d0101", []string{"", "filing:", "priority:", "publication:"}[r.IntN(4)], 2000+r.IntN(20))
			}
			if i%5 == 0 {
				b["before"] = fmt.Sprintf("filing:%d1231", 2021+r.IntN(4))
			}
			if i%3 == 2 {
				b["countries"] = []any{pick(r, []string{"US", "EP", "DE", "JP"})}
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			field := func(bound string) (string, string) {
				kind, day, ok := strings.Cut(bound, ":")
				if !ok {
					kind, day = "priority", bound
				}
				return kind + "_date", day[:4] + "-" + day[4:6] + "-" + day[6:]
			}
			for _, m := range recs {
				if !hasWords(str(m["title"]), body["query"].(string)) {
					t.Errorf("%v: a patent titled %q", body, m["title"])
				}
				for _, k := range []string{"assignee", "inventor"} {
					if v, ok := body[k].(string); ok && m[k] != v {
						t.Errorf("%v: %s %v", body, k, m[k])
					}
				}
				if a, ok := body["after"].(string); ok {
					if f, d := field(a); str(m[f]) < d {
						t.Errorf("%v: %s %v", body, f, m[f])
					}
				}
				if b, ok := body["before"].(string); ok {
					if f, d := field(b); str(m[f]) > d {
						t.Errorf("%v: %s %v", body, f, m[f])
					}
				}
				if cs, ok := body["countries"].([]any); ok && !strings.HasPrefix(str(m["publication_number"]), cs[0].(string)) {
					t.Errorf("%v: %v", body, m["publication_number"])
				}
			}
			switch body["sort"] {
			case "new":
				if !sort.SliceIsSorted(recs, func(i, j int) bool { return str(recs[i]["filing_date"]) > str(recs[j]["filing_date"]) }) {
					t.Errorf("%v: not newest first", body)
				}
			case "old":
				if !sort.SliceIsSorted(recs, func(i, j int) bool { return str(recs[i]["filing_date"]) < str(recs[j]["filing_date"]) }) {
					t.Errorf("%v: not oldest first", body)
				}
			}
			checkMoreAdvances(t, c, body, r, "publication_number")
		}},
		{"trends.search", func(r *rand.Rand, i int) map[string]any {
			data := []string{"interest_over_time", "interest_by_region", "related_queries"}[i%3]
			n := 1 + r.IntN(3)
			if data == "related_queries" {
				n = 1
			}
			var qs []any
			for _, k := range r.Perm(len(topicWords))[:n] {
				qs = append(qs, topicWords[k])
			}
			b := map[string]any{"queries": qs, "data": data, "time_range": pick(r, []string{"past_day", "past_7_days", "past_30_days", "past_90_days", "past_12_months", "past_5_years"})}
			if i%2 == 0 {
				b["geo"] = pick(r, []string{"US", "GB", "DE", "JP", "BR"})
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			qs := body["queries"].([]any)
			if len(recs) != len(qs) {
				t.Fatalf("%v: %d records: %.300s", body, len(recs), r.Body)
			}
			points := map[string]int{"past_day": 180, "past_7_days": 168, "past_30_days": 30, "past_90_days": 90, "past_12_months": 52, "past_5_years": 261}
			peak := 0.0
			for k, m := range recs {
				if m["title"] != qs[k] || m["query"] != qs[k] {
					t.Errorf("%v: record %d is %v", body, k, m["title"])
				}
				switch body["data"] {
				case "interest_over_time":
					ps, _ := m["points"].([]any)
					if len(ps) != points[body["time_range"].(string)] {
						t.Errorf("%v: %d points", body, len(ps))
					}
					prev := 0.0
					for _, p := range ps {
						pm := p.(map[string]any)
						v, _ := num(pm["value"])
						ts, _ := num(pm["timestamp"])
						if v < 0 || v > 100 || ts <= prev || ts > float64(time.Now().Unix()) {
							t.Fatalf("%v: point %v", body, pm)
						}
						prev = ts
						peak = max(peak, v)
					}
					if len(ps) > 0 && time.Since(time.Unix(int64(prev), 0)) > 8*24*time.Hour {
						t.Errorf("%v: the series ends %v", body, time.Unix(int64(prev), 0))
					}
				case "interest_by_region":
					regs, _ := m["regions"].([]any)
					if len(regs) == 0 {
						t.Errorf("%v: no regions", body)
					}
				case "related_queries":
					if !strings.Contains(string(r.Body), fmt.Sprint(qs[0])+" ") {
						t.Errorf("%v: related queries not about the term: %.300s", body, r.Body)
					}
				}
			}
			if body["data"] == "interest_over_time" && peak != 100 {
				t.Errorf("%v: the peak is %v, not 100", body, peak)
			}
		}},
		{"video.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"query": pick(r, topicWords), "num": 1 + r.IntN(8)}
			if i%3 == 0 {
				b["published_after"] = fmt.Sprintf("%d-06-01T00:00:00Z", 2015+r.IntN(10))
			}
			if d := []string{"", "short", "medium", "long"}[i%4]; d != "" {
				b["duration"] = d
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if n, _ := num(body["num"]); len(recs) != int(n) {
				t.Errorf("%v: %d videos", body, len(recs))
			}
			for k, m := range recs {
				if !hasWords(str(m["title"]), body["query"].(string)) {
					t.Errorf("%v: a video titled %q", body, m["title"])
				}
				if after, ok := body["published_after"].(string); ok && str(m["published_at"]) < after {
					t.Errorf("%v: published %v", body, m["published_at"])
				}
				if _, ok := body["duration"]; !ok && k == 0 {
					tr := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"record_id": m["record_id"], "action": "transcript"})
					if tr.Status != http.StatusOK || !strings.Contains(fmt.Sprint(tr.JSON), strings.ToLower(str(m["title"]))) {
						t.Errorf("%v: the transcript of %q: %d %.400s", body, m["title"], tr.Status, tr.Body)
					}
				}
				if d, ok := body["duration"].(string); ok && k == 0 {
					det := c.e.Do(http.MethodPost, "/v1/follow-up", c.key, map[string]any{"record_id": m["record_id"], "action": "details"})
					if det.Status != http.StatusOK {
						t.Fatalf("%v: details %d %s", body, det.Status, det.Body)
					}
					dm, _ := det.JSON["detail"].(map[string]any)
					secs, _ := num(dm["duration_seconds"])
					lo, hi := map[string][2]float64{"short": {0, 240}, "medium": {240, 1200}, "long": {1200, 1e6}}[d][0], map[string][2]float64{"short": {0, 240}, "medium": {240, 1200}, "long": {1200, 1e6}}[d][1]
					if secs < lo || secs > hi || !strings.Contains(fmt.Sprint(det.JSON), str(m["title"])) {
						t.Errorf("%v: the details of %q: %.400s", body, m["title"], det.Body)
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"social.search", func(r *rand.Rand, i int) map[string]any {
			platform := []string{"platform_a", "platform_b"}[i%2]
			kind := []string{"posts", "posts", "profiles"}[i%3]
			q := pick(r, topicWords)
			if platform == "platform_a" && kind == "posts" && i%4 == 0 {
				q += " from:" + pick(r, []string{"otter_watch", "BonsaiDaily", "chess_club"})
			}
			if platform == "platform_a" && kind == "profiles" {
				q = pick(r, []string{"otter_watch", "BonsaiDaily", "chess_club"}) + " @" + pick(r, []string{"tidepool_fan", "HeatPumpHQ"})
			}
			return map[string]any{"platform": platform, "kind": kind, "query": q, "num": 1 + r.IntN(10)}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			q := body["query"].(string)
			if len(recs) == 0 {
				t.Fatalf("%v: nothing found", body)
			}
			for _, m := range recs {
				text := str(m["title"]) + " " + str(m["snippet"])
				switch {
				case body["kind"] == "profiles" && body["platform"] == "platform_a":
					if !strings.Contains(q, strings.TrimSuffix(strings.SplitN(str(m["title"]), "(@", 2)[1], ")")) {
						t.Errorf("%v: profile %q", body, m["title"])
					}
				case body["kind"] == "profiles":
					if !strings.Contains(str(m["title"]), strings.ReplaceAll(providers.Slug(q), "-", "_")) {
						t.Errorf("%v: profile %q", body, m["title"])
					}
				default:
					if !hasWords(text, providers.TopicWords(q)) {
						t.Errorf("%v: a post %q", body, text)
					}
					if from := providers.QueryOperator(q, "from"); from != "" && m["author"] != from {
						t.Errorf("%v: a post by %v", body, m["author"])
					}
				}
			}
			if body["kind"] == "posts" {
				checkMoreAdvances(t, c, body, r, "url")
			}
		}},
		{"classics.search", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"num": 1 + r.IntN(12)}
			if i%3 != 2 {
				b["query"] = pick(r, []string{"winter", "harbour lights", "the orchard", "voyage", "silent sea"})
			}
			if i%3 != 0 {
				b["author"] = pick(r, []string{"Jane Austen", "Leo Tolstoy", "Mary Shelley", "Fyodor Dostoevsky", "Emily Brontë"})
			}
			if i%4 == 1 {
				b["language"] = pick(r, []string{"fr", "de", "es"})
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no works", body)
			}
			for _, m := range recs {
				if q, ok := body["query"].(string); ok && !hasWords(str(m["title"]), q) {
					t.Errorf("%v: %q", body, m["title"])
				}
				if a, ok := body["author"].(string); ok && !hasWords(fmt.Sprint(m["authors"]), a) {
					t.Errorf("%v: %q by %v", body, m["title"], m["authors"])
				}
				if l, ok := body["language"].(string); ok && fmt.Sprint(m["languages"]) != "["+l+"]" {
					t.Errorf("%v: %q in %v", body, m["title"], m["languages"])
				}
			}
			checkMoreAdvances(t, c, body, r, "url")
		}},
		{"fitness.exercises", func(r *rand.Rand, i int) map[string]any {
			b := map[string]any{"num": 1 + r.IntN(10)}
			if i%3 != 2 {
				b["muscle"] = pick(r, []string{"biceps", "back", "quadriceps", "glutes", "core", "shoulders", "calves"})
			}
			if i%2 == 0 {
				b["equipment"] = pick(r, []string{"barbell", "kettlebell", "cable", "bodyweight", "machine"})
			}
			if i%3 == 2 || i%5 == 0 {
				b["query"] = pick(r, []string{"curl", "zercher squat", "row", "landmine press", "raise"})
			}
			return b
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			slug := map[string]string{"quadriceps": "quads"}
			for _, m := range recs {
				if q, ok := body["query"].(string); ok && !hasWords(str(m["title"]), q) {
					t.Errorf("%v: %q", body, m["title"])
				}
				if mu, ok := body["muscle"].(string); ok {
					if s, ok := slug[mu]; ok {
						mu = s
					}
					if ms, _ := m["muscles"].([]any); len(ms) == 0 || ms[0] != mu {
						t.Errorf("%v: %q works %v", body, m["title"], m["muscles"])
					}
				}
				if e, ok := body["equipment"].(string); ok && !strings.Contains(fmt.Sprint(m["equipment"]), e) {
					t.Errorf("%v: %q needs %v", body, m["title"], m["equipment"])
				}
			}
			if _, ok := body["query"]; !ok && len(recs) == 0 {
				t.Errorf("%v: no exercises", body)
			}
			checkMoreAdvances(t, c, body, r, "title")
		}},
		{"scripture.search", func(r *rand.Rand, i int) map[string]any {
			text := []string{"bible", "quran"}[i%2]
			if i%4 < 2 {
				return map[string]any{"text": text, "query": pick(r, []string{"mercy", "the stranger", "living water", "patience", "a lamp"}), "num": 1 + r.IntN(8)}
			}
			if text == "bible" {
				ref := pick(r, []string{"John", "Genesis", "Romans", "Ruth", "Isaiah"}) + fmt.Sprintf(" %d", 1+r.IntN(4))
				if i%3 == 0 {
					ref += fmt.Sprintf(":%d-%d", 1+r.IntN(3), 4+r.IntN(4))
				}
				return map[string]any{"text": text, "reference": ref, "num": 1 + r.IntN(8)}
			}
			return map[string]any{"text": text, "reference": fmt.Sprintf("%d", 2+r.IntN(100)), "num": 1 + r.IntN(8)}
		}, func(t *testing.T, c *checker, body map[string]any, r *gatewaytest.Response) {
			recs := r.Results()
			if len(recs) == 0 {
				t.Fatalf("%v: no verses: %.300s", body, r.Body)
			}
			for _, m := range recs {
				if q, ok := body["query"].(string); ok && !strings.Contains(fmt.Sprint(m), q) {
					t.Errorf("%v: a verse without the phrase: %v", body, m)
				}
				if ref, ok := body["reference"].(string); ok && body["text"] == "bible" {
					book, chapter, _ := strings.Cut(strings.Split(ref, ":")[0], " ")
					if !strings.HasPrefix(str(m["title"]), book) || !strings.Contains(str(m["title"]), " "+chapter+":") {
						t.Errorf("%v: verse %q", body, m["title"])
					}
				}
			}
			checkMoreAdvances(t, c, body, r, "title")
		}},
	}
}

// TestTestModeIsConsistentWithTheRequestTopics is issue 36's property test of the topic searches.
func TestTestModeIsConsistentWithTheRequestTopics(t *testing.T) {
	t.Parallel() // a long CPU-bound sweep: it shares the two cores with the others
	e := gatewaytest.New(t, gatewaytest.Options{Limiter: gatewaytest.Unlimited{}})
	for _, cc := range consistencyCasesI36a() {
		t.Run(cc.id, func(t *testing.T) {
			_, _, key := e.NewTenant("pro")
			c := &checker{e: e, key: key}
			for i := range consistencyRequests {
				r := rand.New(rand.NewPCG(uint64(i), 361))
				body := cc.gen(r, i)
				resp := e.Do(http.MethodPost, "/v1/capabilities/"+cc.id+"/execute", key, body)
				if resp.Status != http.StatusOK {
					t.Fatalf("%v: %d %s", body, resp.Status, resp.Body)
				}
				if !strings.Contains(fmt.Sprint(resp.JSON["notes"]), providers.SandboxNote) {
					t.Errorf("%v: no synthetic-answer note: %v", body, resp.JSON["notes"])
				}
				again := e.Do(http.MethodPost, "/v1/capabilities/"+cc.id+"/execute", key, body)
				if fmt.Sprint(again.Titles()) != fmt.Sprint(resp.Titles()) {
					t.Errorf("%v: two answers to one request", body)
				}
				cc.check(t, c, body, resp)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestTopicSandboxesAreDeterministic: the generated upstream answers of the topic searches are
// the same bytes for the same upstream request, and differ for another query.
func TestTopicSandboxesAreDeterministic(t *testing.T) {
	handlers := map[string]http.Handler{}
	for _, p := range registry.Providers() {
		handlers[p.ID] = providers.SandboxOf(p)
	}
	for _, c := range []struct{ provider, target string }{
		{"serpapi", "/search.json?engine=google&q=heat+pump&tbs=qdr:w&api_key=k"},
		{"serpapi", "/search.json?engine=google_news&q=heat+pump+when:7d&api_key=k"},
		{"serpapi", "/search.json?engine=google_patents&q=heat+pump&num=10&after=filing:20180101&api_key=k"},
		{"serpapi", "/search.json?engine=google_trends&q=tea,heat+pump&data_type=TIMESERIES&date=today+12-m&api_key=k"},
		{"gutendex", "/books/?search=heat+pump+Leo+Tolstoy&page=1"},
		{"youtube", "/youtube/v3/search?part=snippet&type=video&q=heat+pump&maxResults=5&key=k"},
		{"reddit", "/search?q=heat+pump&type=link&limit=5&raw_json=1"},
		{"x", "/2/tweets/search/recent?query=heat+pump&max_results=10"},
		{"exercisevideo", "/api/v2/exercises?muscleGroup=biceps&search=heat+pump&page=1&pageSize=5"},
		{"apibible", "/v1/bibles/de4e12af7f28f599-02/search?query=heat+pump&limit=3&offset=0"},
		{"quran", "/api/v4/search?q=heat+pump&size=3&page=1&language=en&translations=131"},
	} {
		h := handlers[c.provider]
		if h == nil {
			t.Fatalf("%s has no sandbox", c.provider)
		}
		serve := func(target string) []byte {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s %s: %d %s", c.provider, target, rec.Code, rec.Body)
			}
			return rec.Body.Bytes()
		}
		a, b := serve(c.target), serve(c.target)
		other := serve(strings.ReplaceAll(c.target, "heat", "solar"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s %s: two answers to one request", c.provider, c.target)
		}
		if bytes.Equal(a, other) || !strings.Contains(strings.ToLower(string(a)), "heat pump") {
			t.Errorf("%s %s: the answer is not about the query: %.300s", c.provider, c.target, a)
		}
	}
}
