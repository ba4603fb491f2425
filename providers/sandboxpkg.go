package providers

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// RenameFixture is a recorded answer about one named thing (a package, a repository) rewritten
// to be about another: every string that names the recorded one names the requested one.
func RenameFixture(fixture []byte, from, to string) []byte {
	doc := decodeAny(fixture)
	if doc == nil {
		return fixture
	}
	RewriteStrings(doc, func(_, s string) string { return ReplaceFold(s, from, to) })
	renameKeys(doc, from, to)
	renameNumbers(doc, from, to)
	return JSONBytes(doc)
}

// renameNumbers replaces numbers equal to from (a numeric id) by to when to is a number.
func renameNumbers(v any, from, to string) {
	n, err := strconv.ParseInt(to, 10, 64)
	if err != nil {
		return
	}
	to = strconv.FormatInt(n, 10) // JSON numbers have no leading zeros
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if n, ok := c.(json.Number); ok && string(n) == from {
				x[k] = json.Number(to)
				continue
			}
			renameNumbers(c, from, to)
		}
	case []any:
		for i, c := range x {
			if n, ok := c.(json.Number); ok && string(n) == from {
				x[i] = json.Number(to)
				continue
			}
			renameNumbers(c, from, to)
		}
	}
}

// renameKeys renames object keys that contain from (a packument's versions map, a tag map).
func renameKeys(v any, from, to string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			renameKeys(c, from, to)
			if nk := ReplaceFold(k, from, to); nk != k {
				delete(x, k)
				x[nk] = c
			}
		}
	case []any:
		for _, c := range x {
			renameKeys(c, from, to)
		}
	}
}

func decodeAny(b []byte) any {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// PickName chooses one of the recorded names for a requested one, the same every time.
func PickName(requested string, recorded []string) string {
	if len(recorded) == 0 {
		return ""
	}
	return recorded[SeedOf("pick", requested).IntN(len(recorded))]
}

// SandboxPeriod reads a download-statistics period as registries write it: last-day, last-week,
// last-month, last-year, a day, or "start:end"; relative periods end yesterday (UTC).
func SandboxPeriod(period string, now time.Time) (start, end time.Time, ok bool) {
	y := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	switch period {
	case "last-day":
		return y, y, true
	case "last-week":
		return y.AddDate(0, 0, -6), y, true
	case "last-month":
		return y.AddDate(0, 0, -29), y, true
	case "last-year":
		return y.AddDate(0, 0, -364), y, true
	}
	a, b, isRange := strings.Cut(period, ":")
	s, err := time.Parse(time.DateOnly, a)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	if !isRange {
		return s, s, true
	}
	e, err := time.Parse(time.DateOnly, b)
	if err != nil || e.Before(s) {
		return time.Time{}, time.Time{}, false
	}
	return s, e, true
}
