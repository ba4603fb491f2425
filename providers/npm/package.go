package npm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// maxSnippet bounds the record snippet (the package description).
const maxSnippet = 300

// Package is jspkg.package (spec 4.8).
var Package = &providers.Capability{
	ID:      "jspkg.package",
	Fresh:   time.Hour,
	Title:   "JavaScript package metadata",
	Summary: "Look up one package of the JavaScript package registry: its latest or a given version's manifest, or the full metadata document with every version.",
	Description: "Looks up one package of the JavaScript package registry by name (scoped names such as @scope/name " +
		"are allowed). With version (\"latest\", another dist-tag such as \"next\", or an exact version such as " +
		"\"4.17.21\") the registry resolves it and returns that one version's manifest. Without version the " +
		"registry returns the package's full metadata document: every published version's manifest, the " +
		"dist-tags, publish times, maintainers and the README when available; the record then describes the " +
		"version the \"latest\" dist-tag points to. The answer is one record (single result): title " +
		"(name@version), url (the package homepage, when it declares one), snippet (the description) and " +
		"the keys package (string, always), version (string: the resolved version), license (string or " +
		"object, as the package declares it), repository (string or object, as declared), maintainers " +
		"(object[]: name and email), dependencies (object: name to semver range), dist (object: tarball, " +
		"shasum, integrity, fileCount, unpackedSize), dist_tags (object: tag to version; full document " +
		"only) and version_count (integer; full document only); each key except package only when the " +
		"registry has it. The complete registry document is stored with the record: the record action " +
		"details returns it for free (the full metadata document, or the one manifest). Metadata " +
		"documents larger than 8 MiB are refused with provider_error: request a specific version then. " +
		"An unknown package is invalid_request at /package; an unknown version or dist-tag at /version. " +
		"more is refused (single result) and update is not offered.",
	Topic:     "Dev",
	Request:   packageRequestSchema,
	Paging:    providers.PagingSingle,
	NoUpdate:  true,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: the JavaScript package registry is a keyless public API; lookups and their stored details cost no credits."},
	Deadline:  15 * time.Second,
	Providers: []string{RegistryID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The complete registry document stored with the record at lookup time (complete cached " +
			"document, free): the full metadata document with every version manifest and the README when " +
			"available, or the one version manifest that was requested.",
		Kind: providers.ActionStored,
	}},
	Examples: []providers.Example{
		{Title: "Full metadata and version history of a package", Body: providers.ExampleBody(`{"package": "yargs"}`)},
		{Title: "The latest manifest of a scoped package", Body: providers.ExampleBody(`{"package": "@babel/parser", "version": "latest"}`)},
		{Title: "One exact version", Body: providers.ExampleBody(`{"package": "yargs", "version": "17.7.2"}`)},
	},
	Execute: lookupPackage,
	Record:  PackageRecord{},
}

const packageRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "jspkg.package request",
  "description": "Look up one package of the JavaScript package registry: one version's manifest, or (without version) the full metadata document with every version.",
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
    "version": {
      "type": "string",
      "minLength": 1,
      "maxLength": 256,
      "pattern": "` + versionPattern + `",
      "description": "\"latest\", another dist-tag (for example \"next\") or an exact version (for example \"4.18.2\"): the registry resolves it and one manifest is returned. Omit it for the full metadata document with every version manifest, the dist-tags and the README when available (refused when larger than 8 MiB)."
    }
  }
}`

func lookupPackage(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	name := call.Request.Str("package")
	version := call.Request.Str("version")
	u := call.Upstream(RegistryID)
	path := documentPath(name)
	if version != "" {
		path = manifestPath(name, version)
	}
	resp, err := u.Get(ctx, path, nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return nil, documentError(err, name, version)
	}
	var doc map[string]json.RawMessage
	if err := u.Decode(resp, &doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "%s answered a document that is not a JSON object", RegistryID).WithRetryable(false)
	}
	var rec providers.Record
	var notes []string
	if version == "" {
		rec, notes = packumentRecord(name, doc)
	} else {
		rec, notes = manifestRecord(name, version, doc)
	}
	rec.Stored = map[string]*providers.Detail{"details": {
		Body:  json.RawMessage(resp.Body),
		Links: detailLinks(rec),
	}}
	return &providers.Page{Records: []providers.Record{rec}, Notes: notes}, nil
}

// packumentRecord maps the full metadata document: the version the "latest" dist-tag points to
// describes the record, with the document's dist-tags, maintainers and version count.
func packumentRecord(requested string, doc map[string]json.RawMessage) (providers.Record, []string) {
	name := firstNonEmpty(str(doc["name"]), str(doc["_id"]), requested)
	versions := decodeObject(doc["versions"])
	tags, hasTags := stringMap(doc["dist-tags"])
	latest := tags["latest"]
	if _, ok := versions[latest]; !ok || latest == "" {
		latest = newestVersion(versions, decodeObject(doc["time"]))
	}
	manifest := decodeObject(versions[latest])

	f := &PackageRecord{Package: name, Version: latest}
	manifestFields(f, manifest)
	// The document hoists license and repository from the latest version; use them when the
	// manifest itself lacks them. Maintainers of the document are the current publishers.
	for _, field := range []struct {
		key string
		dst *any
	}{{"license", &f.License}, {"repository", &f.Repository}} {
		if *field.dst == nil {
			if v, ok := stringOrObject(doc[field.key]); ok {
				*field.dst = v
			}
		}
	}
	if m, ok := objects(doc["maintainers"]); ok {
		f.Maintainers = m
	}
	if hasTags && len(tags) > 0 {
		f.DistTags = tags
	}
	if versions != nil {
		n := len(versions)
		f.VersionCount = &n
	}

	var notes []string
	if t := decodeObject(doc["time"]); t != nil {
		if un := decodeObject(t["unpublished"]); un != nil {
			when := str(un["time"])
			notes = append(notes, strings.TrimSpace("The package was unpublished from the registry "+when)+"; no versions can be installed.")
		}
	}
	if latest == "" && len(notes) == 0 {
		notes = append(notes, "The registry document lists no installable version of this package.")
	}
	if dep := str(manifest["deprecated"]); dep != "" && latest != "" {
		notes = append(notes, fmt.Sprintf("Version %s is deprecated: %s", latest, dep))
	}
	description := firstNonEmpty(str(manifest["description"]), str(doc["description"]))
	homepage := firstNonEmpty(webURL(str(manifest["homepage"])), webURL(str(doc["homepage"])))
	return packageRecord(name, latest, description, homepage, f), notes
}

// manifestRecord maps one version manifest (GET /{name}/{version}).
func manifestRecord(requested, version string, m map[string]json.RawMessage) (providers.Record, []string) {
	name := firstNonEmpty(str(m["name"]), requested)
	resolved := firstNonEmpty(str(m["version"]), version)
	f := &PackageRecord{Package: name, Version: resolved}
	manifestFields(f, m)
	if mt, ok := objects(m["maintainers"]); ok {
		f.Maintainers = mt
	}
	var notes []string
	if dep := str(m["deprecated"]); dep != "" {
		notes = append(notes, fmt.Sprintf("Version %s is deprecated: %s", resolved, dep))
	}
	return packageRecord(name, resolved, str(m["description"]), webURL(str(m["homepage"])), f), notes
}

// manifestFields copies license, repository, dependencies and dist of one version manifest.
func manifestFields(f *PackageRecord, m map[string]json.RawMessage) {
	if m == nil {
		return
	}
	if v, ok := stringOrObject(m["license"]); ok {
		f.License = v
	}
	if v, ok := stringOrObject(m["repository"]); ok {
		f.Repository = v
	}
	if deps, ok := stringMap(m["dependencies"]); ok {
		f.Dependencies = deps
	}
	f.Dist = distOf(m["dist"])
}

// distOf keeps the dist members the spec names: tarball, shasum, integrity, fileCount and
// unpackedSize (signatures and attestations stay in the stored document).
func distOf(raw json.RawMessage) *Dist {
	var d struct {
		Tarball      lenient.Str `json:"tarball"`
		Shasum       lenient.Str `json:"shasum"`
		Integrity    lenient.Str `json:"integrity"`
		FileCount    lenient.Int `json:"fileCount"`
		UnpackedSize lenient.Int `json:"unpackedSize"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil
	}
	out := Dist{Tarball: string(d.Tarball), Shasum: string(d.Shasum), Integrity: string(d.Integrity)}
	if d.FileCount.OK {
		out.FileCount = &d.FileCount.V
	}
	if d.UnpackedSize.OK {
		out.UnpackedSize = &d.UnpackedSize.V
	}
	if out == (Dist{}) {
		return nil
	}
	return &out
}

func packageRecord(name, version, description, homepage string, f *PackageRecord) providers.Record {
	title := name
	if version != "" {
		title = name + "@" + version
	}
	return providers.Record{
		Title:   title,
		URL:     homepage,
		Snippet: providers.ClipLine(description, maxSnippet),
		Data:    f,
	}
}

// newestVersion picks the most recently published version listed in versions, by the document's
// time map, when no usable "latest" dist-tag exists; "" when versions is empty.
func newestVersion(versions, times map[string]json.RawMessage) string {
	if len(versions) == 0 {
		return ""
	}
	keys := make([]string, 0, len(versions))
	for v := range versions {
		keys = append(keys, v)
	}
	sort.Strings(keys)
	best, bestAt := keys[len(keys)-1], time.Time{}
	for _, v := range keys {
		at, err := time.Parse(time.RFC3339Nano, str(times[v]))
		if err == nil && at.After(bestAt) {
			best, bestAt = v, at
		}
	}
	return best
}

// detailLinks are the links of a stored document: the homepage, the repository as a browsable URL
// and the tarball of the described version, each when the registry has it.
func detailLinks(rec providers.Record) []providers.Link {
	links := []providers.Link{}
	if rec.URL != "" {
		links = append(links, providers.Link{Label: "Homepage", URL: rec.URL})
	}
	f, _ := rec.Data.(*PackageRecord)
	if f == nil {
		return links
	}
	if repo := repositoryURL(f.Repository); repo != "" {
		links = append(links, providers.Link{Label: "Repository", URL: repo})
	}
	if d := f.Dist; d != nil && webURL(d.Tarball) != "" {
		links = append(links, providers.Link{Label: "Tarball of " + rec.Title, URL: d.Tarball})
	}
	return links
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
