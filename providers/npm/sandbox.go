package npm

import (
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox knows every package and version (issue 18) but the reserved miss sandbox-not-found
// (as a package or a version): a package it has no recording of is one of the recorded packages
// renamed (its document, its manifests), any version or tag asked for is the latest manifest
// renamed, and download counts are drawn from the name and the day. Searches carry the asked
// words.
func init() {
	providers.RegisterGenerators(RegistryID, providers.GeneratedRoute{Path: "/*", Generate: generatePackage,
		Match: func(r *http.Request) bool { return !strings.HasPrefix(r.URL.Path, "/-/") }})
	providers.RegisterGenerators(RegistryID, providers.GeneratedRoute{Path: "/-/v1/search", Generate: generateSearch})
	providers.RegisterGenerators(DownloadsID, providers.GeneratedRoute{Path: "/downloads/*", Generate: generateDownloads})
}

// splitPackagePath reads "/name[/rest]" or "/@scope/name[/rest]".
func splitPackagePath(p string) (name, rest string) {
	segs := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 3)
	if strings.HasPrefix(segs[0], "@") && len(segs) > 1 {
		name = segs[0] + "/" + segs[1]
		if len(segs) > 2 {
			rest = segs[2]
		}
		return name, rest
	}
	name = segs[0]
	if len(segs) > 1 {
		rest = strings.Join(segs[1:], "/")
	}
	return name, rest
}

func generatePackage(r *http.Request, fixture []byte, status int) ([]byte, int) {
	name, rest := splitPackagePath(r.URL.Path)
	if status == http.StatusOK || name == "" || providers.IsSandboxMiss(name) {
		return fixture, status
	}
	if providers.IsSandboxMiss(rest) {
		// The reserved miss as a version: the registry's 404, a bare JSON string.
		return providers.JSONBytes("version not found: " + rest), http.StatusNotFound
	}
	known := slices.Sorted(func(yield func(string) bool) {
		for k := range sandboxPackuments {
			if !yield(strings.TrimPrefix(k, "/")) {
				return
			}
		}
	})
	base := providers.PickName(name, known)
	if _, recorded := sandboxPackuments["/"+name]; recorded {
		base = name // another version or tag of a recorded package
	}
	if rest == "" {
		b, err := fs.ReadFile(sandboxFS(), sandboxPackuments["/"+base])
		if err != nil {
			return fixture, status
		}
		if base == name {
			return b, http.StatusOK
		}
		return providers.SyntheticIdentity(providers.RenameFixture(b, base, name), name), http.StatusOK
	}
	file := sandboxManifests["/"+base+"/latest"]
	b, err := fs.ReadFile(sandboxFS(), file)
	if err != nil {
		return fixture, status
	}
	out := b
	if base != name {
		out = providers.SyntheticIdentity(providers.RenameFixture(b, base, name), name)
	}
	if rest != "latest" && !strings.Contains(rest, "/") {
		doc := providers.JSONObject(out)
		if v, ok := doc["version"].(string); ok {
			out = providers.RenameFixture(out, v, rest)
		}
	}
	return out, http.StatusOK
}

func generateDownloads(r *http.Request, fixture []byte, status int) ([]byte, int) {
	segs := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/downloads/"), "/", 3)
	if len(segs) < 3 {
		return fixture, status
	}
	kind, period, name := segs[0], segs[1], segs[2]
	if status == http.StatusOK || providers.IsSandboxMiss(name) {
		return fixture, status
	}
	start, end, ok := providers.SandboxPeriod(period, time.Now())
	if !ok {
		return fixture, status
	}
	rnd := providers.SeedOf("npm downloads", name)
	perDay := 50 + rnd.IntN(2_000_000)
	day := func(t time.Time) int {
		d := providers.SeedOf("npm day", name, t.Format(time.DateOnly))
		n := perDay*8/10 + d.IntN(perDay*4/10+1)
		if wd := t.Weekday(); wd == time.Saturday || wd == time.Sunday {
			n /= 2
		}
		return n
	}
	span := downloadsPeriod{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly), Package: name}
	total := 0
	var days []dayCount
	for t := start; !t.After(end); t = t.AddDate(0, 0, 1) {
		n := day(t)
		total += n
		days = append(days, dayCount{Day: t.Format(time.DateOnly), Downloads: int64(n)})
	}
	if kind == "range" {
		return providers.JSONBytes(downloadsRange{downloadsPeriod: span, Downloads: days}), http.StatusOK
	}
	return providers.JSONBytes(downloadsPoint{downloadsPeriod: span, Downloads: total}), http.StatusOK
}

// downloadsPeriod is the package and the days a download counts answer covers.
type downloadsPeriod struct {
	Start   string `json:"start"`
	End     string `json:"end"`
	Package string `json:"package"`
}

// downloadsPoint is the point answer: the total downloads over the period.
type downloadsPoint struct {
	downloadsPeriod
	Downloads int `json:"downloads"`
}

// downloadsRange is the range answer: the downloads of each day of the period.
type downloadsRange struct {
	downloadsPeriod
	Downloads []dayCount `json:"downloads"`
}
