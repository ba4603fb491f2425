package pypi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/providers"
)

// Details is pypkg.details (spec 4.19).
var Details = &providers.Capability{
	ID:      "pypkg.details",
	Fresh:   time.Hour,
	Title:   "Python package details",
	Summary: "Metadata of a project on the Python package index: latest or given release, Python requirement, dependencies, license, links and known vulnerabilities.",
	Description: "Looks up one project on the Python package index (its JSON API) and answers one record for its latest " +
		"release, or for `version` when given. `package` is the project name (1 to 214 characters); case and runs of " +
		"'-', '_' and '.' are normalized as PEP 503 says, so Flask_SQLAlchemy and flask-sqlalchemy are the same " +
		"project. `version` (1 to 128 characters) picks one release; omit it for the latest. The record's title is " +
		"\"<name> <version>\", its url the release page and its snippet the summary. Keys: package and version " +
		"(strings, always: the project's published name and the release), requires_python (string), requires_dist " +
		"(string[], dependency specifiers as published), license and license_expression (strings), project_urls " +
		"(object of label to URL), vulnerabilities (object[] of known vulnerabilities of this release: id, aliases, " +
		"summary, fixed_in, link, source and withdrawn when given; left out when none are known) and file_count " +
		"(integer, always: the release's distribution files). Metadata is supplied by the publisher at upload time " +
		"and not verified by the index; the index's deprecated download counters and releases list are left out. " +
		"An unknown project is refused with invalid_request at /package, an unknown release of a known project at " +
		"/version. Upstream answers over 8 MiB are refused with provider_error. Follow-ups: more is refused (single " +
		"result); update is not offered; the record action details (free, stored at search time) answers the " +
		"cached metadata: the full description and its content type, classifiers, authors and maintainers, project " +
		"links, every distribution file with its URL, size, upload time, yank state and sha256/md5/blake2b_256 " +
		"hashes, and the known vulnerabilities with their full text.",
	Topic:     topic,
	Request:   detailsRequestSchema,
	Paging:    providers.PagingSingle,
	NoUpdate:  true,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: the Python package index's JSON API is keyless; the stored details cost nothing."},
	Deadline:  15 * time.Second,
	Providers: []string{indexID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The release's cached metadata, stored at search time: full description, project links, every " +
			"distribution file with its download URL and hashes, and the known vulnerabilities. Free.",
		Kind: providers.ActionStored,
	}},
	Examples: []providers.Example{
		{Title: "Latest release of a project", Body: providers.ExampleBody(`{"package": "requests"}`)},
		{Title: "One release, with its known vulnerabilities (the name is normalized)", Body: providers.ExampleBody(`{"package": "Django", "version": "4.2.11"}`)},
	},
	Execute: executeDetails,
	Record:  ReleaseRecord{},
}

const detailsRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "pypkg.details request",
  "description": "Look up one project on the Python package index: its latest release, or the release named by version.",
  "type": "object",
  "additionalProperties": false,
  "required": ["package"],
  "properties": {
    ` + packageProperty + `,
    ` + versionProperty + `
  }
}`

func executeDetails(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	name := normalizeName(call.Request.Str("package"))
	ver := call.Request.Str("version")
	rel, err := fetchRelease(ctx, call, name, ver)
	if err != nil {
		return nil, unknownRelease(ctx, call, err, name, ver)
	}
	if rel.Info.V.Version == "" {
		// version is an "always" key: an answer that does not name its release is broken.
		return nil, providers.Errorf(providers.CodeProviderError, "the Python package index answered %s without the release's version", projectPath(name, ver))
	}
	return &providers.Page{Records: []providers.Record{detailsRecord(rel, name)}}, nil
}

// unknownRelease words a 404: without a version the project is unknown; with one, a second look
// at the project tells an unknown release of a known project (/version) from an unknown project.
func unknownRelease(ctx context.Context, call *providers.Call, err error, name, ver string) error {
	var unknown *errProjectUnknown
	if !errors.As(err, &unknown) {
		return err
	}
	if ver == "" {
		return noSuchProject(name)
	}
	_, perr := fetchRelease(ctx, call, name, "")
	e, _ := providers.AsError(perr)
	switch {
	case perr == nil:
	case errors.As(perr, &unknown):
		return noSuchProject(name)
	case e == nil || e.UpstreamStatus < 200 || e.UpstreamStatus > 299:
		return perr
	default: // the project answered, over the size limit: it exists
	}
	return providers.InvalidField("/version", fmt.Sprintf("project %q has no release %q on the Python package index", name, ver)).
		WithHint("Omit version for the latest release; pypkg.versions lists the published versions.")
}

// noSuchProject refuses an unknown project name.
func noSuchProject(name string) error {
	return providers.InvalidField("/package", fmt.Sprintf("the Python package index has no project named %q", name)).
		WithHint("Check the spelling; pypkg.search finds projects by topic.")
}

// detailsRecord maps a JSON API answer (with info.version) to the record of spec 4.19, with the
// details stored.
func detailsRecord(rel *indexRelease, fallbackName string) providers.Record {
	info := rel.Info.V
	name := firstNonEmpty(string(info.Name), fallbackName)
	ver := string(info.Version)
	f := &ReleaseRecord{Package: name, Version: ver, FileCount: len(distributions(rel)),
		RequiresPython: string(info.RequiresPython), RequiresDist: strs(info.RequiresDist), License: string(info.License),
		LicenseExpression: string(info.LicenseExpression), ProjectURLs: projectURLs(info),
		Vulnerabilities: vulnerabilities(rel, false)}
	rec := providers.Record{
		Title:   name + " " + ver,
		Snippet: string(info.Summary),
		Data:    f,
		Stored:  map[string]*providers.Detail{"details": releaseDetail(rel, fallbackName)},
	}
	for _, u := range []string{string(info.ReleaseURL), string(info.PackageURL), string(info.ProjectURL)} {
		if isWebURL(u) {
			rec.URL = u
			break
		}
	}
	return rec
}
