package pypi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// historyDays is how much of pypistats' daily series is kept (spec section 8).
const historyDays = 180

// Downloads is pypkg.downloads (spec 4.23).
var Downloads = &providers.Capability{
	ID:      "pypkg.downloads",
	Fresh:   time.Hour,
	Title:   "Python package downloads",
	Summary: "Download counts of a project on the Python package index from pypistats: last day, week and month, or the daily history of up to 180 days.",
	Description: "Download statistics of one project on the Python package index, from pypistats (which aggregates the " +
		"index's public download logs and ignores known mirrors). `package` (required, 1 to 214 characters; case and " +
		"runs of '-', '_' and '.' are normalized as PEP 503 says). `kind`: recent (default) answers the totals of the " +
		"last day, week and month; overall answers the daily history of up to 180 days, excluding known mirrors. One " +
		"record; all keys always present: package (string, normalized name), kind (recent or overall), source " +
		"(\"pypistats\"), data (recent: object {last_day, last_week, last_month} of integers; overall: object[] of " +
		"{category: \"without_mirrors\", date: YYYY-MM-DD, downloads: integer}, oldest first), fetched_at (string, RFC " +
		"3339: when pypistats was asked), cache_hit (boolean: true when the answer came from this gateway's cache) " +
		"and mirrors (boolean, always false: mirror downloads are excluded). Caveats: pypistats updates its data once " +
		"a day; answers are cached for 24 hours per gateway process, at most 256 package/kind entries; fresh " +
		"entries are never evicted, so a request for a new entry while all 256 are fresh fails with the retryable " +
		"service_unavailable (Retry-After: until the oldest entry expires); when pypistats answers 429, new lookups " +
		"pause for its Retry-After (one hour when absent) and fail with rate_limited or provider_allowance, while " +
		"cached answers stay available. A project pypistats has no data for (unknown, or without recorded " +
		"downloads) answers not_found. Follow-ups: more is refused (single result); update is not offered; no record actions.",
	Topic:     topic,
	Request:   downloadsRequestSchema,
	Paging:    providers.PagingSingle,
	NoUpdate:  true,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: pypistats is a keyless public API, and answers are cached for 24 hours."},
	Deadline:  15 * time.Second,
	Providers: []string{statsID},
	Examples: []providers.Example{
		{Title: "Downloads in the last day, week and month", Body: providers.ExampleBody(`{"package": "requests"}`)},
		{Title: "Daily downloads over the last 180 days, without mirrors", Body: providers.ExampleBody(`{"package": "requests", "kind": "overall"}`)},
	},
	Execute: executeDownloads,
	Record:  DownloadsRecord{},
}

const downloadsRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "pypkg.downloads request",
  "description": "Download statistics of one project on the Python package index, from pypistats.",
  "type": "object",
  "additionalProperties": false,
  "required": ["package"],
  "properties": {
    ` + packageProperty + `,
    "kind": {
      "type": "string",
      "enum": ["recent", "overall"],
      "default": "recent",
      "description": "recent (default): total downloads of the last day, week and month. overall: daily downloads of up to the last 180 days, excluding known mirrors."
    }
  }
}`

func executeDownloads(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	name := normalizeName(call.Request.Str("package"))
	kind := call.Request.Str("kind")
	if kind != "overall" {
		kind = "recent"
	}
	c := cacheFor(call.Mode, call.Tenant)
	key := kind + " " + name
	if e, ok := c.get(key); ok {
		return downloadsPage(name, kind, e, true), nil
	}
	release, err := c.reserve(key)
	if err != nil {
		return nil, err
	}
	defer release()
	data, err := fetchDownloads(ctx, call, name, kind)
	if err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusTooManyRequests {
			wait := e.RetryAfter
			if wait <= 0 && e.Code == providers.CodeProviderAllowance {
				wait = defaultPause // the client found no usable Retry-After
			}
			c.pause(wait)
			return nil, pausedError(wait, true)
		}
		return nil, err
	}
	e := cacheEntry{data: data, fetched: c.now().UTC()}
	c.put(key, e.data, e.fetched)
	return downloadsPage(name, kind, e, false), nil
}

// statsAnswer is a pypistats API answer: {data, package, type}.
type statsAnswer[T any] struct {
	Data    T           `json:"data"`
	Package lenient.Str `json:"package"`
	Type    lenient.Str `json:"type"`
}

type statsRow struct {
	Category  lenient.Str `json:"category"`
	Date      lenient.Str `json:"date"`
	Downloads lenient.Int `json:"downloads"`
}

// fetchDownloads calls /api/packages/{pkg}/recent or /overall?mirrors=false and maps the data.
func fetchDownloads(ctx context.Context, call *providers.Call, name, kind string) (any, error) {
	u := call.Upstream(statsID)
	path := "/api/packages/" + url.PathEscape(name) + "/" + kind
	var q url.Values
	if kind == "overall" {
		q = url.Values{"mirrors": {"false"}}
	}
	resp, err := u.Get(ctx, path, q, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
			return nil, providers.Errorf(providers.CodeNotFound,
				"pypistats has no download statistics for %q: the project is unknown to the package index, or has no recorded downloads", name).
				WithHint("Check the project name with pypkg.details.")
		}
		return nil, err
	}
	if kind == "recent" {
		var a statsAnswer[lenient.Obj[map[string]lenient.Int]]
		if err := u.Decode(resp, &a); err != nil {
			return nil, err
		}
		counts := map[string]int64{}
		if a.Data.V != nil {
			for _, k := range []string{"last_day", "last_week", "last_month"} {
				if n := (*a.Data.V)[k]; n.OK {
					counts[k] = n.V
				}
			}
		}
		if len(counts) == 0 {
			return nil, providers.Errorf(providers.CodeProviderError, "pypistats answered the recent downloads of %q without counts", name)
		}
		return counts, nil
	}
	var a statsAnswer[lenient.List[statsRow]]
	if err := u.Decode(resp, &a); err != nil {
		return nil, err
	}
	if a.Data == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "pypistats answered the download history of %q without data", name)
	}
	return history(a.Data), nil
}

// history keeps the days without mirror downloads, oldest first, and only the last 180 days of
// the series (counted back from its newest day, so an answer is never cut by the clock).
func history(rows lenient.List[statsRow]) []HistoryDay {
	type day struct {
		date      time.Time
		text      string
		downloads int64
	}
	var days []day
	for _, r := range rows {
		if r.Category != "" && r.Category != "without_mirrors" {
			continue
		}
		d, err := time.Parse(time.DateOnly, string(r.Date))
		if err != nil || !r.Downloads.OK {
			continue
		}
		days = append(days, day{date: d, text: string(r.Date), downloads: r.Downloads.V})
	}
	sort.SliceStable(days, func(i, j int) bool { return days[i].date.Before(days[j].date) })
	out := []HistoryDay{}
	if len(days) == 0 {
		return out
	}
	cutoff := days[len(days)-1].date.AddDate(0, 0, -(historyDays - 1))
	for _, d := range days {
		if !d.date.Before(cutoff) {
			out = append(out, HistoryDay{Category: "without_mirrors", Date: d.text, Downloads: d.downloads})
		}
	}
	return out
}

func downloadsPage(name, kind string, e cacheEntry, hit bool) *providers.Page {
	rec := providers.Record{
		URL: statsURL + "/packages/" + url.PathEscape(name),
		Data: &DownloadsRecord{Package: name, Kind: kind, Source: statsID, Data: e.data,
			FetchedAt: e.fetched.UTC().Format(time.RFC3339), CacheHit: hit},
	}
	switch d := e.data.(type) {
	case map[string]int64:
		rec.Title = name + ": downloads in the last day, week and month"
		rec.Snippet = fmt.Sprintf("Last day %s, last week %s, last month %s (without mirrors).", count(d, "last_day"), count(d, "last_week"), count(d, "last_month"))
	case []HistoryDay:
		rec.Title = name + ": daily downloads, up to the last 180 days"
		if len(d) > 0 {
			var total int64
			for _, row := range d {
				total += row.Downloads
			}
			rec.Snippet = fmt.Sprintf("%d downloads over %d days, %s to %s (without mirrors).", total, len(d), d[0].Date, d[len(d)-1].Date)
		}
	}
	return &providers.Page{Records: []providers.Record{rec}}
}

func count(m map[string]int64, k string) string {
	if n, ok := m[k]; ok {
		return fmt.Sprint(n)
	}
	return "unknown"
}
