package scripture

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// bible-api.com refuses ranges across more than one chapter boundary (400 "too many chapters")
// and blocks an address for an hour after more than 10 misses in 30 s: the adapter refuses such
// ranges and verses beyond a chapter's end before any call.
func TestBibleAPILocalChecks(t *testing.T) {
	cases := []struct {
		ref, translation string
		path             string // the request sent; "" when refused before any call
		why              string // a word of the violation
	}{
		{"John 3:16-4:1", "kjv", "/JHN+3:16-4:1", ""},
		{"John 3:16-5:1", "kjv", "", "spans 3 chapters"},
		{"Gen 1:1-50:26", "kjv", "", "spans 50 chapters"},
		{"John 3:37", "kjv", "", "John 3 has 36 verses"},
		{"John 3:36", "kjv", "/JHN+3:36", ""},
		{"John 3:30-4:55", "kjv", "", "John 4 has 54 verses"},
		{"Psalm 119:176", "kjv", "/PSA+119:176", ""},
		{"Psalm 117:3", "kjv", "", "Psalms 117 has 2 verses"},
		{"Jude 26", "kjv", "", "Jude 1 has 25 verses"},
		{"3 John 15", "web", "/3JN+1:15", ""},
		{"Rev 12:18", "oeb-us", "/REV+12:18", ""},
		{"Psalm 3:9", "kjv", "", "Psalms 3 has 8 verses"},
		{"Psalm 3:9", "clementine", "/PSA+3:9", ""},
		{"Psalm 3:12", "clementine", "", "Psalms 3 has 8 verses"},
		{"Mal 4:6", "kjv", "/MAL+4:6", ""},
	}
	for _, tc := range cases {
		t.Run(tc.ref+" "+tc.translation, func(t *testing.T) {
			body := `{"text":"bible","reference":"` + tc.ref + `","translation":"` + tc.translation + `"}`
			if tc.path == "" {
				// Refused by the capability's rules, before the adapter runs.
				_, err := providertest.Prepare(t, Search, body)
				if providertest.ErrorCode(err) != providers.CodeInvalidRequest ||
					strings.Join(providertest.ViolationPaths(err), ",") != "/reference" || !strings.Contains(providers.MessageOf(err), tc.why) {
					t.Fatalf("error %v; want a violation at /reference mentioning %q", err, tc.why)
				}
				return
			}
			f := providertest.ServeFile(t, http.StatusOK, "testdata/bibleapi_jhn_3_16-18.json")
			_, err := run(t, fakes{bible: f}.client(t), body, "")
			reqs := f.Requests()
			if err != nil || len(reqs) != 1 || reqs[0].URL.Path != tc.path || reqs[0].Method != http.MethodGet {
				t.Fatalf("error %v, requests %v; want one GET %s", err, reqs, tc.path)
			}
		})
	}
}

// A plain-text 403 "Forbidden" is bible-api.com's one-hour block of the address: the answer is a
// retryable provider_allowance with Retry-After of an hour, and no further call is sent until the
// hour is over (like the pypistats pause).
func TestBibleAPIBlock(t *testing.T) {
	body, err := os.ReadFile("testdata/bibleapi_blocked_403.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{Answer: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(body)
	}}
	clock := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	saved := bibleAPIBlocks
	bibleAPIBlocks = &blocks{until: map[string]time.Time{}, now: func() time.Time { return clock }}
	t.Cleanup(func() { bibleAPIBlocks = saved })
	c := fakes{bible: f}.client(t)
	check := func(t *testing.T, wantCalls int, wantWait time.Duration) {
		t.Helper()
		_, err := run(t, c, `{"text":"bible","reference":"John 3:16"}`, "")
		e, ok := providers.AsError(err)
		if !ok || e.Code != providers.CodeProviderAllowance || !e.IsRetryable() || e.RetryAfter != wantWait {
			t.Fatalf("error %v (retry after %v); want retryable provider_allowance after %s", err, e.RetryAfter, wantWait)
		}
		if n := len(f.Requests()); n != wantCalls {
			t.Fatalf("%d calls to bible-api.com, want %d", n, wantCalls)
		}
	}
	check(t, 1, time.Hour)
	clock = clock.Add(20 * time.Minute)
	check(t, 1, 40*time.Minute)
	clock = clock.Add(41 * time.Minute)
	check(t, 2, time.Hour) // the block is over: the next call is sent (and blocked again here)
}

func TestVerseTable(t *testing.T) {
	total, chapters := 0, 0
	for _, b := range books {
		counts := verseCounts[b.ID]
		if len(counts) != b.Chapters {
			t.Errorf("%s: %d verse counts, %d chapters", b.ID, len(counts), b.Chapters)
		}
		for _, n := range counts {
			total += n
		}
		chapters += len(counts)
	}
	if len(verseCounts) != len(books) || chapters != 1189 || total != 31102+2 {
		t.Errorf("%d books, %d chapters, %d verses; want 66, 1189 and the KJV's 31,102 plus 3 John 1:15 and Revelation 12:18", len(verseCounts), chapters, total)
	}
}
