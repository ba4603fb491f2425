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
func vulnerability(v indexVuln, full bool) (map[string]any, bool) {
	if v.ID == "" && v.Summary == "" && v.Details == "" {
		return nil, false
	}
	m := map[string]any{}
	lenient.SetStr(m, "id", string(v.ID))
	if a := strs(v.Aliases); len(a) > 0 {
		m["aliases"] = a
	}
	lenient.SetStr(m, "summary", string(v.Summary))
	if full {
		lenient.SetStr(m, "details", string(v.Details))
	}
	if f := strs(v.FixedIn); len(f) > 0 {
		m["fixed_in"] = f
	}
	lenient.SetStr(m, "link", string(v.Link))
	lenient.SetStr(m, "source", string(v.Source))
	lenient.SetStr(m, "withdrawn", string(v.Withdrawn))
	return m, true
}

func vulnerabilities(rel *indexRelease, full bool) []map[string]any {
	out := []map[string]any{}
	for _, v := range rel.Vulnerabilities {
		if m, ok := vulnerability(v, full); ok {
			out = append(out, m)
		}
	}
	return out
}

// distribution maps one file of urls[]: where to download it and how to check it.
func distribution(f indexFile) (map[string]any, bool) {
	if f.Filename == "" && f.URL == "" {
		return nil, false
	}
	m := map[string]any{}
	lenient.SetStr(m, "filename", string(f.Filename))
	lenient.SetStr(m, "url", string(f.URL))
	lenient.SetStr(m, "packagetype", string(f.Packagetype))
	lenient.SetStr(m, "python_version", string(f.PythonVersion))
	lenient.SetStr(m, "requires_python", string(f.RequiresPython))
	lenient.SetInt(m, "size", f.Size)
	up := f.UploadTime
	if up == "" {
		up = f.UploadTimeOld
	}
	lenient.SetStr(m, "upload_time", string(up))
	if f.Yanked.OK {
		m["yanked"] = f.Yanked.V
		if f.Yanked.V {
			lenient.SetStr(m, "yanked_reason", string(f.YankedReason))
		}
	}
	if f.Digests.V != nil {
		d := map[string]string{}
		for _, k := range []string{"sha256", "md5", "blake2b_256"} {
			if v := (*f.Digests.V)[k]; v != "" {
				d[k] = string(v)
			}
		}
		if len(d) > 0 {
			m["digests"] = d
		}
	}
	return m, true
}

// distributions maps urls[]; entries with neither a file name nor a URL are not files.
func distributions(rel *indexRelease) []map[string]any {
	files := []map[string]any{}
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
	body := map[string]any{"package": name}
	set := func(key string, v lenient.Str) { lenient.SetStr(body, key, string(v)) }
	set("version", info.Version)
	set("summary", info.Summary)
	set("description", info.Description)
	set("description_content_type", info.DescriptionContentType)
	set("requires_python", info.RequiresPython)
	if l := strs(info.RequiresDist); len(l) > 0 {
		body["requires_dist"] = l
	}
	if l := strs(info.ProvidesExtra); len(l) > 0 {
		body["provides_extra"] = l
	}
	set("license", info.License)
	set("license_expression", info.LicenseExpression)
	if l := strs(info.LicenseFiles); len(l) > 0 {
		body["license_files"] = l
	}
	if l := strs(info.Classifiers); len(l) > 0 {
		body["classifiers"] = l
	}
	set("keywords", info.Keywords)
	set("author", info.Author)
	set("author_email", info.AuthorEmail)
	set("maintainer", info.Maintainer)
	set("maintainer_email", info.MaintainerEmail)
	if u := projectURLs(info); u != nil {
		body["project_urls"] = u
	}
	for _, u := range []struct {
		key string
		v   string
	}{
		{"home_page", string(info.HomePage)}, {"docs_url", string(info.DocsURL)}, {"download_url", string(info.DownloadURL)},
		{"package_url", firstNonEmpty(string(info.PackageURL), string(info.ProjectURL))}, {"release_url", string(info.ReleaseURL)},
	} {
		if isWebURL(u.v) { // publishers write "UNKNOWN" and the like into home_page
			body[u.key] = u.v
		}
	}
	if info.Yanked.OK {
		body["yanked"] = info.Yanked.V
		if info.Yanked.V {
			set("yanked_reason", info.YankedReason)
		}
	}
	body["files"] = distributions(rel)
	body["vulnerabilities"] = vulnerabilities(rel, true)
	if o := rel.Ownership.V; o != nil {
		own := map[string]any{}
		var roles []map[string]string
		for _, r := range o.Roles {
			if r.User != "" {
				roles = append(roles, map[string]string{"role": string(r.Role), "user": string(r.User)})
			}
		}
		if len(roles) > 0 {
			own["roles"] = roles
		}
		lenient.SetStr(own, "organization", string(o.Organization))
		if len(own) > 0 {
			body["ownership"] = own
		}
	}
	lenient.SetInt(body, "last_serial", rel.LastSerial)
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
