package pypi

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// indexRelease is the index's JSON API answer for a project (latest release) or one release.
// The deprecated keys (releases, info.downloads, has_sig, bugtrack_url) are not decoded at all.
type indexRelease struct {
	Info            lenient.Obj[indexInfo]      `json:"info"`
	LastSerial      lenient.Int                 `json:"last_serial"`
	URLs            lenient.List[indexFile]     `json:"urls"`
	Vulnerabilities lenient.List[indexVuln]     `json:"vulnerabilities"`
	Ownership       lenient.Obj[indexOwnership] `json:"ownership"`
}

type indexInfo struct {
	Name                   lenient.Str                         `json:"name"`
	Version                lenient.Str                         `json:"version"`
	Summary                lenient.Str                         `json:"summary"`
	Description            lenient.Str                         `json:"description"`
	DescriptionContentType lenient.Str                         `json:"description_content_type"`
	RequiresPython         lenient.Str                         `json:"requires_python"`
	RequiresDist           lenient.List[lenient.Str]           `json:"requires_dist"`
	ProvidesExtra          lenient.List[lenient.Str]           `json:"provides_extra"`
	License                lenient.Str                         `json:"license"`
	LicenseExpression      lenient.Str                         `json:"license_expression"`
	LicenseFiles           lenient.List[lenient.Str]           `json:"license_files"`
	Classifiers            lenient.List[lenient.Str]           `json:"classifiers"`
	Keywords               lenient.Str                         `json:"keywords"`
	Author                 lenient.Str                         `json:"author"`
	AuthorEmail            lenient.Str                         `json:"author_email"`
	Maintainer             lenient.Str                         `json:"maintainer"`
	MaintainerEmail        lenient.Str                         `json:"maintainer_email"`
	ProjectURLs            lenient.Obj[map[string]lenient.Str] `json:"project_urls"`
	HomePage               lenient.Str                         `json:"home_page"`
	DocsURL                lenient.Str                         `json:"docs_url"`
	DownloadURL            lenient.Str                         `json:"download_url"`
	PackageURL             lenient.Str                         `json:"package_url"`
	ProjectURL             lenient.Str                         `json:"project_url"`
	ReleaseURL             lenient.Str                         `json:"release_url"`
	Yanked                 lenient.Bool                        `json:"yanked"`
	YankedReason           lenient.Str                         `json:"yanked_reason"`
}

type indexFile struct {
	Filename       lenient.Str                         `json:"filename"`
	URL            lenient.Str                         `json:"url"`
	Packagetype    lenient.Str                         `json:"packagetype"`
	PythonVersion  lenient.Str                         `json:"python_version"`
	RequiresPython lenient.Str                         `json:"requires_python"`
	Size           lenient.Int                         `json:"size"`
	UploadTime     lenient.Str                         `json:"upload_time_iso_8601"`
	UploadTimeOld  lenient.Str                         `json:"upload_time"`
	Yanked         lenient.Bool                        `json:"yanked"`
	YankedReason   lenient.Str                         `json:"yanked_reason"`
	Digests        lenient.Obj[map[string]lenient.Str] `json:"digests"`
}

type indexVuln struct {
	ID        lenient.Str               `json:"id"`
	Aliases   lenient.List[lenient.Str] `json:"aliases"`
	Summary   lenient.Str               `json:"summary"`
	Details   lenient.Str               `json:"details"`
	FixedIn   lenient.List[lenient.Str] `json:"fixed_in"`
	Link      lenient.Str               `json:"link"`
	Source    lenient.Str               `json:"source"`
	Withdrawn lenient.Str               `json:"withdrawn"`
}

type indexOwnership struct {
	Roles lenient.List[struct {
		Role lenient.Str `json:"role"`
		User lenient.Str `json:"user"`
	}] `json:"roles"`
	Organization lenient.Str `json:"organization"`
}

// errProjectUnknown marks a 404 of the JSON API: the project (or the release) does not exist.
type errProjectUnknown struct{ cause error }

func (e *errProjectUnknown) Error() string { return "the index has no such project or release" }
func (e *errProjectUnknown) Unwrap() error { return e.cause }

// fetchRelease reads /pypi/{project}[/{version}]/json. A 404 comes back as *errProjectUnknown for
// the caller to word; an answer over the size limit as a provider_error with a hint; an answer
// without an info object as a provider_error.
func fetchRelease(ctx context.Context, call *providers.Call, name, version string) (*indexRelease, error) {
	var out indexRelease
	err := call.Upstream(indexID).GetJSON(ctx, projectPath(name, version), nil, &out)
	if err != nil {
		if e, ok := providers.AsError(err); ok {
			switch {
			case e.UpstreamStatus == http.StatusNotFound:
				return nil, &errProjectUnknown{cause: err}
			case e.Code == providers.CodeProviderError && e.UpstreamStatus >= 200 && e.UpstreamStatus < 300:
				// The client reports a 2xx answer it stopped reading as over its size limit.
				out := *e
				out.Message = fmt.Sprintf("the Python package index's metadata for %s is larger than the 8 MiB limit", name)
				out.Hint = "Ask for one release with version: a release answer leaves out the project's file history."
				if version != "" {
					out.Hint = "This release's metadata is too large to relay; read its page on the package index instead."
				}
				return nil, &out
			}
		}
		return nil, err
	}
	if out.Info.V == nil {
		return nil, providers.Errorf(providers.CodeProviderError, "the Python package index answered %s without its info object", projectPath(name, version))
	}
	return &out, nil
}

// strs keeps the non-blank strings of a list.
func strs(l lenient.List[lenient.Str]) []string {
	out := make([]string, 0, len(l))
	for _, s := range l {
		if s != "" {
			out = append(out, string(s))
		}
	}
	return out
}

// projectURLs is info.project_urls without blank values; nil when there is none.
func projectURLs(info *indexInfo) map[string]string {
	if info.ProjectURLs.V == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range *info.ProjectURLs.V {
		if k != "" && v != "" {
			out[k] = string(v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// vulnerability maps one entry of vulnerabilities[]; full adds the long details text. ok is false
// for an entry with neither an id nor any text.
func vulnerability(v indexVuln, full bool) (Vulnerability, bool) {
	if v.ID == "" && v.Summary == "" && v.Details == "" {
		return Vulnerability{}, false
	}
	m := Vulnerability{ID: string(v.ID), Aliases: strs(v.Aliases), Summary: string(v.Summary), FixedIn: strs(v.FixedIn),
		Link: string(v.Link), Source: string(v.Source), Withdrawn: string(v.Withdrawn)}
	if full {
		m.Details = string(v.Details)
	}
	return m, true
}

func vulnerabilities(rel *indexRelease, full bool) []Vulnerability {
	out := []Vulnerability{}
	for _, v := range rel.Vulnerabilities {
		if m, ok := vulnerability(v, full); ok {
			out = append(out, m)
		}
	}
	return out
}

// distribution maps one file of urls[]: where to download it and how to check it.
func distribution(f indexFile) (Distribution, bool) {
	if f.Filename == "" && f.URL == "" {
		return Distribution{}, false
	}
	m := Distribution{Filename: string(f.Filename), URL: string(f.URL), Packagetype: string(f.Packagetype),
		PythonVersion: string(f.PythonVersion), RequiresPython: string(f.RequiresPython), UploadTime: string(f.UploadTime)}
	if f.Size.OK {
		m.Size = &f.Size.V
	}
	if m.UploadTime == "" {
		m.UploadTime = string(f.UploadTimeOld)
	}
	if f.Yanked.OK {
		m.Yanked = &f.Yanked.V
		if f.Yanked.V {
			m.YankedReason = string(f.YankedReason)
		}
	}
	if f.Digests.V != nil {
		dg := *f.Digests.V
		d := Digests{SHA256: string(dg["sha256"]), MD5: string(dg["md5"]), Blake2b256: string(dg["blake2b_256"])}
		if d != (Digests{}) {
			m.Digests = &d
		}
	}
	return m, true
}

// distributions maps urls[]; entries with neither a file name nor a URL are not files.
func distributions(rel *indexRelease) []Distribution {
	files := []Distribution{}
	for _, f := range rel.URLs {
		if m, ok := distribution(f); ok {
			files = append(files, m)
		}
	}
	return files
}

// releaseDetail is the details answer of a release: the publisher's metadata with the full
// description, the project links, every distribution file with its hashes and the known
// vulnerabilities (files and vulnerabilities are always present, possibly empty).
func releaseDetail(rel *indexRelease, fallbackName string) *providers.Detail {
	info := rel.Info.V
	name := firstNonEmpty(string(info.Name), fallbackName)
	body := &ReleaseDetail{Package: name, Version: string(info.Version), Summary: string(info.Summary),
		Description: string(info.Description), DescriptionContentType: string(info.DescriptionContentType),
		RequiresPython: string(info.RequiresPython), RequiresDist: strs(info.RequiresDist),
		ProvidesExtra: strs(info.ProvidesExtra), License: string(info.License),
		LicenseExpression: string(info.LicenseExpression), LicenseFiles: strs(info.LicenseFiles),
		Classifiers: strs(info.Classifiers), Keywords: string(info.Keywords), Author: string(info.Author),
		AuthorEmail: string(info.AuthorEmail), Maintainer: string(info.Maintainer),
		MaintainerEmail: string(info.MaintainerEmail), ProjectURLs: projectURLs(info),
		Files: distributions(rel), Vulnerabilities: vulnerabilities(rel, true)}
	// publishers write "UNKNOWN" and the like into home_page: only web URLs are kept
	for _, u := range []struct {
		dst *string
		v   string
	}{
		{&body.HomePage, string(info.HomePage)}, {&body.DocsURL, string(info.DocsURL)}, {&body.DownloadURL, string(info.DownloadURL)},
		{&body.PackageURL, firstNonEmpty(string(info.PackageURL), string(info.ProjectURL))}, {&body.ReleaseURL, string(info.ReleaseURL)},
	} {
		if isWebURL(u.v) {
			*u.dst = u.v
		}
	}
	if info.Yanked.OK {
		body.Yanked = &info.Yanked.V
		if info.Yanked.V {
			body.YankedReason = string(info.YankedReason)
		}
	}
	if o := rel.Ownership.V; o != nil {
		own := Ownership{Organization: string(o.Organization)}
		for _, r := range o.Roles {
			if r.User != "" {
				own.Roles = append(own.Roles, Role{Role: string(r.Role), User: string(r.User)})
			}
		}
		if own.Organization != "" || len(own.Roles) > 0 {
			body.Ownership = &own
		}
	}
	if rel.LastSerial.OK {
		body.LastSerial = &rel.LastSerial.V
	}
	return &providers.Detail{Body: body, Links: releaseLinks(info)}
}

// releaseLinks are the web links of a release: its page, the project page, then the project's
// own links (sorted by label), home page, documentation and download URL; each URL once.
func releaseLinks(info *indexInfo) []providers.Link {
	links := []providers.Link{}
	seen := map[string]bool{}
	add := func(label, u string) {
		if isWebURL(u) && !seen[u] {
			seen[u] = true
			links = append(links, providers.Link{Label: label, URL: u})
		}
	}
	add("Release page", string(info.ReleaseURL))
	add("Project page", firstNonEmpty(string(info.PackageURL), string(info.ProjectURL)))
	urls := projectURLs(info)
	labels := make([]string, 0, len(urls))
	for k := range urls {
		labels = append(labels, k)
	}
	sort.Strings(labels)
	for _, k := range labels {
		add(k, urls[k])
	}
	add("Home page", string(info.HomePage))
	add("Documentation", string(info.DocsURL))
	add("Download", string(info.DownloadURL))
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
