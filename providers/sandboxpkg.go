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

// SyntheticIdentity rewrites the identity of a renamed recorded package to a clearly synthetic
// one about name: descriptions, authors, maintainers, home pages, repositories and keywords of
// the recorded package no longer appear (in a packument's versions too). The recorded shape,
// versions and files stay.
func SyntheticIdentity(fixture []byte, name string) []byte {
	doc := decodeAny(fixture)
	if doc == nil {
		return fixture
	}
	slug := Slug(name)
	if slug == "" {
		slug = "package"
	}
	text := name + ": synthetic test-mode package metadata (the sandbox does not hold this package's real metadata)."
	person := func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["name"]; ok {
				x["name"] = "Sandbox Maintainer"
			}
			if _, ok := x["email"]; ok {
				x["email"] = "maintainer@" + slug + ".example"
			}
			if _, ok := x["url"]; ok {
				x["url"] = "https://" + slug + ".example/"
			}
			return x
		case string:
			if x == "" {
				return x
			}
			return "Sandbox Maintainer <maintainer@" + slug + ".example>"
		}
		return v
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "description", "summary", "readme":
					if s, ok := c.(string); ok && s != "" {
						x[k] = text
					}
				case "author", "maintainer", "_npmUser":
					x[k] = person(c)
				case "author_email", "maintainer_email":
					if s, ok := c.(string); ok && s != "" {
						x[k] = "maintainer@" + slug + ".example"
					}
				case "maintainers", "contributors":
					if arr, ok := c.([]any); ok && len(arr) > 0 {
						x[k] = []any{person(arr[0])}
					}
				case "homepage", "home_page", "download_url", "project_url", "package_url", "docs_url":
					if s, ok := c.(string); ok && s != "" && !strings.Contains(s, "/pypi/") && !strings.Contains(s, "/project/") {
						x[k] = "https://" + slug + ".example/"
					}
				case "bugs_url":
					if s, ok := c.(string); ok && s != "" {
						x[k] = "https://git.example/" + slug + "/issues"
					}
				case "repository", "bugs":
					switch r := c.(type) {
					case map[string]any:
						if _, ok := r["url"]; ok {
							r["url"] = "git+https://git.example/" + slug + ".git"
							if k == "bugs" {
								r["url"] = "https://git.example/" + slug + "/issues"
							}
						}
					case string:
						x[k] = "https://git.example/" + slug
					}
				case "project_urls":
					if m, ok := c.(map[string]any); ok {
						for pk := range m {
							m[pk] = "https://" + slug + ".example/" + Slug(pk)
						}
					}
				case "keywords":
					switch c.(type) {
					case []any:
						x[k] = []any{name, "sandbox"}
					case string:
						x[k] = name + ", sandbox"
					}
				default:
					walk(c)
				}
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return JSONBytes(doc)
}
