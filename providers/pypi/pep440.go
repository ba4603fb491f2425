package pypi

import (
	"regexp"
	"strings"
)

// pep440 is the version scheme's own pattern (PEP 440, appendix B), case-insensitive, with the
// spellings it allows: a leading v, separators ., - or _ between segments, alpha/beta/c/pre/
// preview for a/b/rc, rev/r for post, an implicit post release "-N" and omitted numbers (0).
var pep440 = regexp.MustCompile(`(?i)^\s*v?` +
	`(?:(?P<epoch>[0-9]+)!)?` +
	`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
	`(?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?` +
	`(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?` +
	`(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?` +
	`(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?` +
	`\s*$`)

// version is a parsed PEP 440 version. Numbers are kept as digit strings without leading zeros
// so that arbitrarily long components compare correctly.
type version struct {
	epoch   string
	release []string
	preL    string // "a", "b" or "rc"; "" without a pre-release
	preN    string
	post    bool
	postN   string
	dev     bool
	devN    string
	local   []string
}

// parseVersion parses a PEP 440 version; ok is false for legacy versions ("2004d", "1.0-beta-x").
func parseVersion(s string) (version, bool) {
	m := pep440.FindStringSubmatch(s)
	if m == nil {
		return version{}, false
	}
	g := func(name string) string { return m[pep440.SubexpIndex(name)] }
	v := version{epoch: digits(g("epoch"))}
	for _, p := range strings.Split(g("release"), ".") {
		v.release = append(v.release, digits(p))
	}
	if g("pre") != "" {
		switch strings.ToLower(g("pre_l")) {
		case "a", "alpha":
			v.preL = "a"
		case "b", "beta":
			v.preL = "b"
		default: // c, rc, pre, preview
			v.preL = "rc"
		}
		v.preN = digits(g("pre_n"))
	}
	if g("post") != "" {
		v.post = true
		v.postN = digits(g("post_n1") + g("post_n2"))
	}
	if g("dev") != "" {
		v.dev = true
		v.devN = digits(g("dev_n"))
	}
	if l := g("local"); l != "" {
		for _, p := range separatorRun.Split(strings.ToLower(l), -1) {
			if isDigits(p) {
				p = digits(p)
			}
			v.local = append(v.local, p)
		}
	}
	return v, true
}

// canonical is the version's normalized text with trailing zeros of the release dropped (the
// index treats 1.0 and 1.0.0 as the same release), used to match file names to versions.
func (v version) canonical() string {
	var b strings.Builder
	if v.epoch != "0" {
		b.WriteString(v.epoch + "!")
	}
	b.WriteString(strings.Join(trimZeros(v.release), "."))
	if v.preL != "" {
		b.WriteString(v.preL + v.preN)
	}
	if v.post {
		b.WriteString(".post" + v.postN)
	}
	if v.dev {
		b.WriteString(".dev" + v.devN)
	}
	if len(v.local) > 0 {
		b.WriteString("+" + strings.Join(v.local, "."))
	}
	return b.String()
}

// compareVersions orders two versions by PEP 440 precedence: -1, 0 or 1.
func compareVersions(a, b version) int {
	if c := compareNum(a.epoch, b.epoch); c != 0 {
		return c
	}
	ra, rb := trimZeros(a.release), trimZeros(b.release)
	for i := 0; i < len(ra) || i < len(rb); i++ {
		x, y := "0", "0"
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if c := compareNum(x, y); c != 0 {
			return c
		}
	}
	if c := comparePre(a, b); c != 0 {
		return c
	}
	if c := compareOptional(a.post, a.postN, b.post, b.postN, false); c != 0 {
		return c
	}
	if c := compareOptional(a.dev, a.devN, b.dev, b.devN, true); c != 0 {
		return c
	}
	return compareLocal(a.local, b.local)
}

// comparePre: a dev release of a final version (1.0.dev1) sorts before its pre-releases; a final
// or post release sorts after them.
func comparePre(a, b version) int {
	rank := func(v version) int {
		switch {
		case v.preL == "" && !v.post && v.dev:
			return 0 // 1.0.dev1 < 1.0a1
		case v.preL == "a":
			return 1
		case v.preL == "b":
			return 2
		case v.preL == "rc":
			return 3
		}
		return 4 // no pre-release
	}
	ka, kb := rank(a), rank(b)
	if ka != kb {
		return sign(ka - kb)
	}
	if ka >= 1 && ka <= 3 {
		return compareNum(a.preN, b.preN)
	}
	return 0
}

// compareOptional compares an optional numbered segment; absentHigh says whether a version
// without it sorts after one with it (dev) or before (post).
func compareOptional(hasA bool, na string, hasB bool, nb string, absentHigh bool) int {
	switch {
	case hasA && hasB:
		return compareNum(na, nb)
	case hasA == hasB:
		return 0
	case hasA: // b lacks the segment
		if absentHigh {
			return -1
		}
		return 1
	default:
		if absentHigh {
			return 1
		}
		return -1
	}
}

// compareLocal: no local label sorts first; numeric parts sort after alphanumeric ones.
func compareLocal(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		na, nb := isDigits(a[i]), isDigits(b[i])
		switch {
		case na && nb:
			if c := compareNum(a[i], b[i]); c != 0 {
				return c
			}
		case na:
			return 1
		case nb:
			return -1
		default:
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
	}
	return sign(len(a) - len(b))
}

// compareNum compares two digit strings without leading zeros.
func compareNum(a, b string) int {
	if len(a) != len(b) {
		return sign(len(a) - len(b))
	}
	return strings.Compare(a, b)
}

// digits strips leading zeros ("" and "000" are 0).
func digits(s string) string {
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return s
}

func trimZeros(release []string) []string {
	n := len(release)
	for n > 1 && release[n-1] == "0" {
		n--
	}
	return release[:n]
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// canonicalVersion is the matching key of a version string: its PEP 440 canonical form, or the
// lower-cased text of a legacy version.
func canonicalVersion(s string) string {
	if v, ok := parseVersion(s); ok {
		return v.canonical()
	}
	return strings.ToLower(strings.TrimSpace(s))
}
