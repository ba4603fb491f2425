package commerce

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// Lenient readers of SerpApi JSON: a value of an unexpected type counts as absent, never a panic.

func stringOf(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

func floatOf(raw json.RawMessage) (float64, bool) {
	var f float64
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// numberOf reads a number given as a JSON number or as a display string ("$1,234.50", "0.8%").
func numberOf(raw json.RawMessage) (float64, bool) {
	if f, ok := floatOf(raw); ok {
		return f, true
	}
	return parseDisplayNumber(stringOf(raw))
}

func intOf(raw json.RawMessage) (int, bool) {
	f, ok := floatOf(raw)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return 0, false
	}
	return int(f), true
}

func objectOf(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func arrayOf(raw json.RawMessage) []json.RawMessage {
	var a []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

func stringsOf(raw json.RawMessage) []string {
	var out []string
	for _, v := range arrayOf(raw) {
		if s := stringOf(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseDisplayNumber reads the first number of a display string such as "$204.59", "1,234.5 USD",
// "-0.8%" or "(1.2)"; thousands separators are dropped.
func parseDisplayNumber(s string) (float64, bool) {
	var b strings.Builder
	started, neg := false, false
scan:
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9', r == '.' && started:
			started = true
			b.WriteRune(r)
		case r == ',' && started:
			// thousands separator
		case (r == '-' || r == '\u2212') && !started:
			neg = true
		case started:
			break scan
		}
	}
	if !started {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(b.String(), "."), 64)
	if err != nil {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// httpURL keeps an absolute http(s) URL, else "".
func httpURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// queryParam reads one query parameter of a URL ("" when absent or unreadable).
func queryParam(link, name string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.Query().Get(name)
}

func round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}
