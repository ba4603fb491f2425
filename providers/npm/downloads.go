package npm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Limits of the download counts API (its documentation: "All other queries are limited to at most
// 18 months of data. The earliest date for which data will be returned is January 10, 2015.").
const (
	maxRangeMonths = 18
	dateLayout     = "2006-01-02"
)

// dataStart is the first day the download counts API has data for.
var dataStart = time.Date(2015, time.January, 10, 0, 0, 0, 0, time.UTC)

// now is the clock of the rules (tests pin it).
var now = func() time.Time { return time.Now().UTC() }

// Downloads is jspkg.downloads (spec 4.13).
var Downloads = &providers.Capability{
	ID:      "jspkg.downloads",
	Fresh:   time.Hour,
	Title:   "JavaScript package download counts",
	Summary: "Download counts of a package of the JavaScript package registry: the total for a period, or daily counts.",
	Description: "Download counts of one package of the JavaScript package registry, from the registry's " +
		"download counts API. period is last-day (the last day with data), last-week (the last 7 " +
		"available days), last-month (the last 30 available days, not the previous calendar month), " +
		"last-year (the last 365 available days), one date YYYY-MM-DD, or an inclusive range " +
		"YYYY-MM-DD:YYYY-MM-DD of at most 18 months (the range must end before the same day 18 months " +
		"after its start). Dates must be real calendar dates, the end must not precede the start, data " +
		"starts on 2015-01-10 (a period ending before that, or starting after today, is refused) and days " +
		"are UTC days; the counts of a day arrive shortly after it ends. kind point (default) gives the " +
		"total of the period, kind range the count of each day. The answer is one record (single result) " +
		"whose keys are all always present: package (string), kind (point or range), start and end " +
		"(strings, the inclusive days the registry counted) and downloads (integer for point; array of " +
		"{day, downloads} for range). An unknown package is invalid_request at /package. more is refused, " +
		"update is not offered and there are no record actions.",
	Topic:     "Dev",
	Request:   downloadsRequestSchema,
	Rules:     downloadsRules,
	Paging:    providers.PagingSingle,
	NoUpdate:  true,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: the registry's download counts API is keyless and public; every call costs no credits."},
	Deadline:  15 * time.Second,
	Providers: []string{DownloadsID},
	Examples: []providers.Example{
		{Title: "Total downloads of the last 30 available days", Body: providers.ExampleBody(`{"package": "yargs"}`)},
		{Title: "Daily downloads of a scoped package for one week", Body: providers.ExampleBody(`{"package": "@babel/parser", "kind": "range", "period": "2024-01-01:2024-01-07"}`)},
		{Title: "Total downloads of the first half of 2024", Body: providers.ExampleBody(`{"package": "yargs", "period": "2024-01-01:2024-06-30"}`)},
	},
	Execute: packageDownloads,
	Record:  DownloadsRecord{},
}

const downloadsRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "jspkg.downloads request",
  "description": "Download counts of one package of the JavaScript package registry: the total of a period (point) or the count of each day (range).",
  "type": "object",
  "additionalProperties": false,
  "required": ["package"],
  "properties": {
    "package": {
      "type": "string",
      "minLength": 1,
      "maxLength": 214,
      "pattern": "` + packagePattern + `",
      "description": "Package name as published, for example \"express\" or the scoped \"@babel/core\"."
    },
    "period": {
      "type": "string",
      "pattern": "^(?:last-day|last-week|last-month|last-year|[0-9]{4}-[0-9]{2}-[0-9]{2}(?::[0-9]{4}-[0-9]{2}-[0-9]{2})?)$",
      "default": "last-month",
      "description": "last-day, last-week (last 7 available days), last-month (the last 30 available days, not the previous calendar month), last-year (last 365 available days), a date YYYY-MM-DD, or an inclusive range YYYY-MM-DD:YYYY-MM-DD of at most 18 months. Data starts on 2015-01-10."
    },
    "kind": {
      "type": "string",
      "enum": ["point", "range"],
      "default": "point",
      "description": "point: the total downloads of the period; range: the downloads of each day of the period."
    }
  }
}`

// explicitPeriod is a period given as dates: start and end (equal for one date).
type explicitPeriod struct {
	start, end time.Time
}

// parsePeriod reads a YYYY-MM-DD or YYYY-MM-DD:YYYY-MM-DD period; ok is false for the last-*
// names. A date that is not a real calendar day is a violation at /period.
func parsePeriod(period string) (p explicitPeriod, ok bool, v *providers.Violation) {
	if strings.HasPrefix(period, "last-") || period == "" {
		return p, false, nil
	}
	first, second, isRange := strings.Cut(period, ":")
	var err error
	if p.start, err = time.Parse(dateLayout, first); err != nil {
		return p, true, &providers.Violation{Path: "/period", Message: fmt.Sprintf("%s is not a calendar date", first)}
	}
	p.end = p.start
	if isRange {
		if p.end, err = time.Parse(dateLayout, second); err != nil {
			return p, true, &providers.Violation{Path: "/period", Message: fmt.Sprintf("%s is not a calendar date", second)}
		}
	}
	return p, true, nil
}

// downloadsRules are the spec's rules beyond the schema (real calendar dates, end not before
// start) and the upstream's documented limits, refused before any call: at most 18 months, data
// from 2015-01-10, and (a decision) no period starting after today.
func downloadsRules(req providers.Request, _ *providers.Update) []providers.Violation {
	p, explicit, v := parsePeriod(req.Str("period"))
	if v != nil {
		return []providers.Violation{*v}
	}
	if !explicit {
		return nil
	}
	bad := func(format string, args ...any) []providers.Violation {
		return []providers.Violation{{Path: "/period", Message: fmt.Sprintf(format, args...)}}
	}
	switch today := now().Truncate(24 * time.Hour); {
	case p.end.Before(p.start):
		return bad("the end date %s precedes the start date %s", p.end.Format(dateLayout), p.start.Format(dateLayout))
	case !p.end.Before(p.start.AddDate(0, maxRangeMonths, 0)):
		return bad("the range %s to %s is longer than the registry's limit of %d months per request; split it",
			p.start.Format(dateLayout), p.end.Format(dateLayout), maxRangeMonths)
	case p.end.Before(dataStart):
		return bad("download counts start on %s; the period ends before that", dataStart.Format(dateLayout))
	case p.start.After(today):
		return bad("the period starts after today (%s, UTC); there are no download counts for it yet", today.Format(dateLayout))
	}
	return nil
}

// downloadsAnswer is the point or range answer, decoded leniently; downloads is an integer
// (point) or an array of {day, downloads} (range).
type downloadsAnswer struct {
	Downloads json.RawMessage `json:"downloads"`
	Start     lenient.Str     `json:"start"`
	End       lenient.Str     `json:"end"`
	Package   lenient.Str     `json:"package"`
	Error     lenient.Str     `json:"error"`
}

// dayCount is one day of a range answer.
type dayCount struct {
	Day       string `json:"day"`
	Downloads int64  `json:"downloads"`
}

func packageDownloads(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	name := call.Request.Str("package")
	period := call.Request.Str("period")
	if period == "" {
		period = "last-month"
	}
	kind := call.Request.Str("kind")
	if kind != "range" {
		kind = "point"
	}
	// The download counts API takes a scoped name with its slash as it is
	// (/downloads/point/last-month/@slack/client in its documentation).
	path := "/downloads/" + kind + "/" + period + "/" + name

	var ans downloadsAnswer
	if err := call.Upstream(DownloadsID).GetJSON(ctx, path, nil, &ans); err != nil {
		status, msg := upstreamStatus(err)
		if mapped := downloadsRefusal(status, msg, name); mapped != nil {
			return nil, mapped
		}
		return nil, err
	}
	if ans.Error != "" {
		// The API has answered some refusals with HTTP 200 and an error member.
		if mapped := downloadsRefusal(http.StatusBadRequest, string(ans.Error), name); mapped != nil {
			return nil, mapped
		}
	}

	asked, explicit, _ := parsePeriod(period)
	start, end := string(ans.Start), string(ans.End)
	if explicit {
		start = firstNonEmpty(start, asked.start.Format(dateLayout))
		end = firstNonEmpty(end, asked.end.Format(dateLayout))
	}
	if start == "" || end == "" {
		return nil, providers.Errorf(providers.CodeProviderError, "%s answered without the start and end of the period", DownloadsID).WithRetryable(true)
	}
	f := &DownloadsRecord{Package: firstNonEmpty(string(ans.Package), name), Kind: kind, Start: start, End: end}
	rec := providers.Record{Data: f}
	if kind == "point" {
		var n lenient.Int
		_ = json.Unmarshal(ans.Downloads, &n)
		if !n.OK {
			return nil, providers.Errorf(providers.CodeProviderError, "%s answered without a download count", DownloadsID).WithRetryable(true)
		}
		f.Downloads = n.V
		rec.Title = fmt.Sprintf("%s: %s downloads, %s to %s", f.Package, thousands(n.V), start, end)
	} else {
		var days lenient.List[struct {
			Day       lenient.Str `json:"day"`
			Downloads lenient.Int `json:"downloads"`
		}]
		if err := json.Unmarshal(ans.Downloads, &days); err != nil || days == nil {
			return nil, providers.Errorf(providers.CodeProviderError, "%s answered without daily download counts", DownloadsID).WithRetryable(true)
		}
		counts := make([]dayCount, 0, len(days))
		var total int64
		for _, d := range days {
			if d.Day == "" || !d.Downloads.OK {
				continue
			}
			counts = append(counts, dayCount{Day: string(d.Day), Downloads: d.Downloads.V})
			total += d.Downloads.V
		}
		f.Downloads = counts
		rec.Title = fmt.Sprintf("%s: daily downloads, %s to %s", f.Package, start, end)
		rec.Snippet = fmt.Sprintf("%s downloads in total over %d days.", thousands(total), len(counts))
	}
	page := &providers.Page{Records: []providers.Record{rec}}
	if explicit && asked.start.Before(dataStart) {
		page.Notes = append(page.Notes, "Download counts start on 2015-01-10; the days of the period before it have no data.")
	}
	return page, nil
}

// downloadsRefusal maps the download counts API's refusals ({"error": "..."}): 404 (the answer
// to an unknown package: "package x not found") is invalid_request at /package; a 400 (or a 200
// carrying an error) about the period, a date or the range is invalid_request at /period; other
// error messages are a provider_error. nil means "not a refusal this function knows".
func downloadsRefusal(status int, msg, name string) error {
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusNotFound:
		return providers.InvalidField("/package", "no such package: "+name).
			WithHint("Check the spelling and the scope (scoped names look like @scope/name); new packages have no counts until their first full day.")
	case status != http.StatusBadRequest && status != http.StatusUnprocessableEntity:
		return nil
	case msg == "":
		return nil
	case strings.Contains(lower, "not found"):
		return providers.InvalidField("/package", "the registry's download counts refused the package: "+msg)
	case strings.Contains(lower, "period") || strings.Contains(lower, "date") || strings.Contains(lower, "range") || strings.Contains(lower, "day"):
		return providers.InvalidField("/period", "the registry's download counts refused the period: "+msg)
	}
	return providers.Errorf(providers.CodeProviderError, "%s refused the request: %s", DownloadsID, msg).WithRetryable(false)
}

// thousands formats n with comma separators (1234567 → "1,234,567").
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
