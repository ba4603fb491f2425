package pypi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// simpleJSON is the media type of the Simple API's JSON form (PEP 691), version 1.
const simpleJSON = "application/vnd.pypi.simple.v1+json"

// Versions is pypkg.versions (named only by the spec; designed like pypkg.details).
var Versions = &providers.Capability{
	ID:      "pypkg.versions",
	Fresh:   time.Hour,
	Title:   "Python package versions",
	Summary: "Every published release of a project on the Python package index, newest first, with upload time, yank state and Python requirement.",
	Description: "Lists the releases of one project on the Python package index, read from the index's Simple API in its " +
		"JSON form (PEP 691 with the PEP 700 fields). Body: `package` (string, required, 1 to 214 characters; case " +
		"and runs of '-', '_' and '.' are normalized as PEP 503 says), `include_yanked` (boolean, default false: " +
		"yanked releases are left out unless true) and `num` (integer, 1 to 100, default 20: records per page). " +
		"One record per release, newest first by PEP 440 version precedence (releases whose version is not a " +
		"PEP 440 version are placed by upload time). Title \"<name> <version>\", url the release page on the " +
		"index. Keys: version (string, always), upload_time (string, RFC 3339: the upload time of the release's " +
		"earliest file), yanked (boolean, always: true when every file of the release is yanked), yanked_reason " +
		"(string, when the index gives one), requires_python (string: the files' Requires-Python, or the earliest " +
		"file's when they differ) and file_count (integer, always; 0 for a release without files). The whole list " +
		"is read once: more pages through it locally for free. Follow-ups: more (local, free), update (change any " +
		"field; the list is read again), and the record action details (free, cached on repeat): the release's " +
		"metadata as pypkg.details stores it (description, links, files with hashes, known vulnerabilities). An " +
		"unknown project is refused with invalid_request at /package.",
	Topic:         topic,
	Request:       versionsRequestSchema,
	Paging:        providers.PagingLocal,
	PageSizeField: "num",
	Cost:          providers.Cost{Typical: 0, Basis: "Free: the Python package index's Simple API is keyless; more pages are served from the session and details lookups cost nothing."},
	Deadline:      15 * time.Second,
	Providers:     []string{indexID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The release's metadata from the index's JSON API: full description, project links, every " +
			"distribution file with its download URL and hashes, and the known vulnerabilities. Free, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     versionDetails,
	}},
	Examples: []providers.Example{
		{Title: "Releases of a project, newest first", Body: providers.ExampleBody(`{"package": "requests"}`)},
		{Title: "The five newest releases, yanked ones included", Body: providers.ExampleBody(`{"package": "requests", "include_yanked": true, "num": 5}`)},
	},
	Execute: executeVersions,
	Record:  VersionRecord{},
}

const versionsRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "pypkg.versions request",
  "description": "List the published releases of one project on the Python package index, newest first.",
  "type": "object",
  "additionalProperties": false,
  "required": ["package"],
  "properties": {
    ` + packageProperty + `,
    "include_yanked": {
      "type": "boolean",
      "default": false,
      "description": "Also list yanked releases (every file withdrawn by the publisher). Default false: yanked releases are left out."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 100,
      "default": 20,
      "description": "Releases per page, 1 to 100 (default 20). The whole list is read at once; more pages through it for free."
    }
  }
}`

// simpleProject is the Simple API's project page in JSON (PEP 691; size, upload-time and
// versions from PEP 700).
type simpleProject struct {
	Meta lenient.Obj[struct {
		APIVersion lenient.Str `json:"api-version"`
	}] `json:"meta"`
	Name     lenient.Str               `json:"name"`
	Files    lenient.List[simpleFile]  `json:"files"`
	Versions lenient.List[lenient.Str] `json:"versions"`
}

type simpleFile struct {
	Filename       lenient.Str     `json:"filename"`
	RequiresPython lenient.Str     `json:"requires-python"`
	Yanked         json.RawMessage `json:"yanked"`
	UploadTime     lenient.Str     `json:"upload-time"`
}

// yanked reads PEP 691's yanked: false/absent, true, or a reason string (which means yanked).
func (f simpleFile) yanked() (bool, string) {
	raw := bytes.TrimSpace(f.Yanked)
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, ""
	}
	var reason string
	if json.Unmarshal(raw, &reason) == nil {
		return true, strings.TrimSpace(reason)
	}
	return false, ""
}

func executeVersions(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	name := normalizeName(call.Request.Str("package"))
	includeYanked, _ := call.Request.Bool("include_yanked")
	u := call.Upstream(indexID)
	resp, err := u.Get(ctx, "/simple/"+url.PathEscape(name)+"/", nil, http.Header{"Accept": {simpleJSON}})
	if err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
			return nil, noSuchProject(name)
		}
		return nil, err
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && mt != simpleJSON && mt != "application/json" {
		return nil, providers.Errorf(providers.CodeProviderError,
			"the configured package index answered the Simple API as %s, not its JSON form (PEP 691)", mt).WithRetryable(false)
	}
	var sp simpleProject
	if err := u.Decode(resp, &sp); err != nil {
		return nil, err
	}
	if m := sp.Meta.V; m != nil && m.APIVersion != "" && !strings.HasPrefix(string(m.APIVersion), "1.") && m.APIVersion != "1" {
		return nil, providers.Errorf(providers.CodeProviderError,
			"the package index serves Simple API version %s; this gateway reads version 1", m.APIVersion).WithRetryable(false)
	}
	if sp.Name != "" {
		name = normalizeName(string(sp.Name))
	}
	releases, unmatched := groupReleases(name, sp)
	out := &providers.Page{Records: []providers.Record{}}
	hidden := 0
	for _, r := range releases {
		if r.yanked && !includeYanked {
			hidden++
			continue
		}
		out.Records = append(out.Records, r.record(name, u.BaseURL))
	}
	if hidden > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d yanked release(s) are not listed; send include_yanked true to list them.", hidden))
	}
	if unmatched > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d file(s) whose name does not carry a recognizable version were not counted.", unmatched))
	}
	return out, nil
}

// release is one version of the project and the files uploaded for it.
type release struct {
	version  string
	parsed   version
	valid    bool
	files    []simpleFile
	earliest time.Time
	uploaded string // upload-time of the earliest file, as the index wrote it

	yanked         bool
	yankedReason   string
	requiresPython string
}

// groupReleases builds the releases of versions[] (PEP 700), attaches every file by the version
// in its name, and sorts them newest first. Files of a version missing from versions[] add it;
// files with no recognizable version are counted as unmatched.
func groupReleases(project string, sp simpleProject) ([]*release, int) {
	byKey := map[string]*release{}
	var all []*release
	add := func(v string) *release {
		key := canonicalVersion(v)
		if r, ok := byKey[key]; ok {
			return r
		}
		r := &release{version: v}
		r.parsed, r.valid = parseVersion(v)
		byKey[key] = r
		all = append(all, r)
		return r
	}
	for _, v := range sp.Versions {
		if v != "" {
			add(string(v))
		}
	}
	unmatched := 0
	for _, f := range sp.Files {
		r := matchRelease(string(f.Filename), project, byKey, all)
		if r == nil {
			if text, exact := fileVersionText(string(f.Filename), project); text != "" && (exact || isVersionText(text)) {
				r = add(text)
			}
		}
		if r == nil {
			unmatched++
			continue
		}
		r.files = append(r.files, f)
	}
	for _, r := range all {
		r.summarize()
	}
	return sortReleases(all), unmatched
}

func isVersionText(s string) bool { _, ok := parseVersion(s); return ok }

// matchRelease finds the known release of a file: by the version in its name (exactly, or as
// the start of an installer's "1.0.win32"-style suffix), else by any "-<version>" part of it.
func matchRelease(filename, project string, byKey map[string]*release, all []*release) *release {
	text, _ := fileVersionText(filename, project)
	if text != "" {
		if r := byKey[canonicalVersion(text)]; r != nil {
			return r
		}
		if isVersionText(text) {
			return nil // a version of its own, missing from versions[]
		}
		var best *release
		lower := strings.ToLower(text)
		for _, r := range all {
			v := strings.ToLower(r.version)
			if len(lower) > len(v) && strings.HasPrefix(lower, v) && (lower[len(v)] == '.' || lower[len(v)] == '-') &&
				(best == nil || len(v) > len(best.version)) {
				best = r
			}
		}
		return best
	}
	stem := stripArchive(filename)
	for i := 0; i < len(stem); i++ {
		if stem[i] == '-' {
			if r := byKey[canonicalVersion(stem[i+1:])]; r != nil {
				return r
			}
		}
	}
	return nil
}

// archiveExts are the distribution file endings other than wheels and eggs, longest first.
var archiveExts = []string{".tar.gz", ".tar.bz2", ".tar.xz", ".tar.z", ".tbz2", ".tgz", ".tbz", ".txz", ".tar", ".zip", ".exe", ".msi", ".rpm", ".dmg", ".deb"}

func stripArchive(filename string) string {
	lower := strings.ToLower(filename)
	for _, ext := range archiveExts {
		if strings.HasSuffix(lower, ext) {
			return filename[:len(filename)-len(ext)]
		}
	}
	return filename
}

// fileVersionText reads the version part of a distribution file name: the second dash-separated
// field of a wheel or egg (exact is true), or what follows the project name in an sdist or
// installer name (which may carry a platform suffix). "" when the name does not say.
func fileVersionText(filename, project string) (text string, exact bool) {
	lower := strings.ToLower(filename)
	for _, ext := range []string{".whl", ".egg"} {
		if strings.HasSuffix(lower, ext) {
			parts := strings.Split(filename[:len(filename)-len(ext)], "-")
			if len(parts) >= 2 && parts[1] != "" {
				return parts[1], true
			}
			return "", false
		}
	}
	stem := stripArchive(filename)
	for i := 1; i < len(stem)-1; i++ {
		if stem[i] == '-' && normalizeName(stem[:i]) == project {
			return stem[i+1:], false
		}
	}
	return "", false
}

// summarize derives the release's keys from its files, read in upload order (files without a
// readable upload time last, in listing order).
func (r *release) summarize() {
	times := make([]time.Time, len(r.files))
	for i, f := range r.files {
		times[i] = parseTime(string(f.UploadTime))
	}
	idx := make([]int, len(r.files))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ta, tb := times[idx[a]], times[idx[b]]
		if ta.IsZero() || tb.IsZero() {
			return !ta.IsZero() && tb.IsZero()
		}
		return ta.Before(tb)
	})
	yankedFiles := 0
	for _, i := range idx {
		f := r.files[i]
		if r.uploaded == "" && f.UploadTime != "" {
			r.uploaded, r.earliest = string(f.UploadTime), times[i]
		}
		if y, reason := f.yanked(); y {
			yankedFiles++
			if r.yankedReason == "" {
				r.yankedReason = reason
			}
		}
		if r.requiresPython == "" {
			r.requiresPython = string(f.RequiresPython) // the files' common value, or the earliest file's
		}
	}
	r.yanked = len(r.files) > 0 && yankedFiles == len(r.files)
	if !r.yanked {
		r.yankedReason = ""
	}
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// sortReleases orders releases newest first: PEP 440 versions by precedence (ties by upload
// time), and legacy versions merged in by upload time.
func sortReleases(all []*release) []*release {
	var valid, legacy []*release
	for _, r := range all {
		if r.valid {
			valid = append(valid, r)
		} else {
			legacy = append(legacy, r)
		}
	}
	newer := func(a, b *release) bool {
		if a.earliest.Equal(b.earliest) {
			return a.version > b.version
		}
		return a.earliest.After(b.earliest)
	}
	sort.SliceStable(valid, func(i, j int) bool {
		if c := compareVersions(valid[i].parsed, valid[j].parsed); c != 0 {
			return c > 0
		}
		return newer(valid[i], valid[j])
	})
	sort.SliceStable(legacy, func(i, j int) bool { return newer(legacy[i], legacy[j]) })
	out := make([]*release, 0, len(all))
	i, j := 0, 0
	for i < len(valid) && j < len(legacy) {
		if !legacy[j].earliest.IsZero() && legacy[j].earliest.After(valid[i].earliest) {
			out = append(out, legacy[j])
			j++
		} else {
			out = append(out, valid[i])
			i++
		}
	}
	out = append(out, valid[i:]...)
	return append(out, legacy[j:]...)
}

// versionRef is a versions record's Ref: what the details lookup needs.
type versionRef struct {
	Package string `json:"package"`
	Version string `json:"version"`
}

func (r *release) record(project, base string) providers.Record {
	f := &VersionRecord{Version: r.version, Yanked: r.yanked, FileCount: len(r.files), UploadTime: r.uploaded,
		YankedReason: r.yankedReason, RequiresPython: r.requiresPython}
	ref, _ := json.Marshal(versionRef{Package: project, Version: r.version})
	return providers.Record{
		Title: project + " " + r.version,
		URL:   indexPage(base, project, r.version),
		Data:  f,
		Ref:   ref,
	}
}

// versionDetails is the details lookup of a versions record: the release's JSON API answer.
func versionDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref versionRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !projectName.MatchString(ref.Package) || ref.Version == "" {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record carries no release reference, so it has no details")
	}
	rel, err := fetchRelease(ctx, call, ref.Package, ref.Version)
	if err != nil {
		var unknown *errProjectUnknown
		if errors.As(err, &unknown) {
			return nil, providers.Errorf(providers.CodeNotFound, "the Python package index no longer has release %s of %s", ref.Version, ref.Package)
		}
		return nil, err
	}
	return releaseDetail(rel, ref.Package), nil
}
