package pypi

// The records and details bodies of the pypkg capabilities. A detail is written by encoding/json,
// which keeps the declared order, so every struct here declares its fields in key order.

// ReleaseRecord is a pypkg.details record (besides title, url and snippet): one release.
type ReleaseRecord struct {
	FileCount         int    `json:"file_count" doc:"distribution files of the release"`
	License           string `json:"license,omitempty"`
	LicenseExpression string `json:"license_expression,omitempty" doc:"SPDX"`
	Package           string `json:"package"`
	// ProjectURLs is keyed by the publisher's own link labels, which the index leaves free-form.
	ProjectURLs     map[string]string `json:"project_urls,omitempty"`
	RequiresDist    []string          `json:"requires_dist,omitempty"`
	RequiresPython  string            `json:"requires_python,omitempty"`
	Version         string            `json:"version"`
	Vulnerabilities []Vulnerability   `json:"vulnerabilities,omitempty"`
}

// Vulnerability is one known vulnerability of a release (details only in a details body).
type Vulnerability struct {
	Aliases   []string `json:"aliases,omitempty"`
	Details   string   `json:"details,omitempty"`
	FixedIn   []string `json:"fixed_in,omitempty"`
	ID        string   `json:"id,omitempty"`
	Link      string   `json:"link,omitempty"`
	Source    string   `json:"source,omitempty"`
	Summary   string   `json:"summary,omitempty"`
	Withdrawn string   `json:"withdrawn,omitempty"`
}

// Distribution is one file of a release: where to download it and how to check it.
type Distribution struct {
	Digests        *Digests `json:"digests,omitempty"`
	Filename       string   `json:"filename,omitempty"`
	Packagetype    string   `json:"packagetype,omitempty"`
	PythonVersion  string   `json:"python_version,omitempty"`
	RequiresPython string   `json:"requires_python,omitempty"`
	Size           *int64   `json:"size,omitempty"`
	UploadTime     string   `json:"upload_time,omitempty"`
	URL            string   `json:"url,omitempty"`
	Yanked         *bool    `json:"yanked,omitempty"`
	YankedReason   string   `json:"yanked_reason,omitempty"`
}

// Digests are a file's hashes, hex.
type Digests struct {
	Blake2b256 string `json:"blake2b_256,omitempty"`
	MD5        string `json:"md5,omitempty"`
	SHA256     string `json:"sha256,omitempty"`
}

// ReleaseDetail is the details body of a release: the publisher's metadata with the full
// description, links, every file and the known vulnerabilities (files and vulnerabilities are
// always present, possibly empty).
type ReleaseDetail struct {
	Author                 string         `json:"author,omitempty"`
	AuthorEmail            string         `json:"author_email,omitempty"`
	Classifiers            []string       `json:"classifiers,omitempty"`
	Description            string         `json:"description,omitempty"`
	DescriptionContentType string         `json:"description_content_type,omitempty"`
	DocsURL                string         `json:"docs_url,omitempty"`
	DownloadURL            string         `json:"download_url,omitempty"`
	Files                  []Distribution `json:"files"`
	HomePage               string         `json:"home_page,omitempty"`
	Keywords               string         `json:"keywords,omitempty"`
	LastSerial             *int64         `json:"last_serial,omitempty"`
	License                string         `json:"license,omitempty"`
	LicenseExpression      string         `json:"license_expression,omitempty"`
	LicenseFiles           []string       `json:"license_files,omitempty"`
	Maintainer             string         `json:"maintainer,omitempty"`
	MaintainerEmail        string         `json:"maintainer_email,omitempty"`
	Ownership              *Ownership     `json:"ownership,omitempty"`
	Package                string         `json:"package"`
	PackageURL             string         `json:"package_url,omitempty"`
	// ProjectURLs is keyed by the publisher's own link labels, which the index leaves free-form.
	ProjectURLs     map[string]string `json:"project_urls,omitempty"`
	ProvidesExtra   []string          `json:"provides_extra,omitempty"`
	ReleaseURL      string            `json:"release_url,omitempty"`
	RequiresDist    []string          `json:"requires_dist,omitempty"`
	RequiresPython  string            `json:"requires_python,omitempty"`
	Summary         string            `json:"summary,omitempty"`
	Version         string            `json:"version,omitempty"`
	Vulnerabilities []Vulnerability   `json:"vulnerabilities"`
	Yanked          *bool             `json:"yanked,omitempty"`
	YankedReason    string            `json:"yanked_reason,omitempty"`
}

// Ownership is who owns a project on the index.
type Ownership struct {
	Organization string `json:"organization,omitempty"`
	Roles        []Role `json:"roles,omitempty"`
}

// Role is one owner or maintainer of a project.
type Role struct {
	Role string `json:"role"`
	User string `json:"user"`
}

// CandidateRecord is a pypkg.search record (besides title, url and snippet): a project a web
// search names, not yet checked against the index.
type CandidateRecord struct {
	Package  string `json:"package"`
	Source   string `json:"source" doc:"web_search"`
	Verified bool   `json:"verified" doc:"false: details checks the project on the index"`
}

// CandidateDetail is the details body of a search record: the project as the index has it.
type CandidateDetail struct {
	License string `json:"license,omitempty"`
	Name    string `json:"name"`
	// ProjectURLs is keyed by the publisher's own link labels, which the index leaves free-form.
	ProjectURLs    map[string]string `json:"project_urls,omitempty"`
	RequiresPython string            `json:"requires_python,omitempty"`
	Summary        string            `json:"summary,omitempty"`
	Verified       bool              `json:"verified"`
	Version        string            `json:"version,omitempty"`
}

// VersionRecord is a pypkg.versions record (besides title and url): one release.
type VersionRecord struct {
	FileCount      int    `json:"file_count"`
	RequiresPython string `json:"requires_python,omitempty"`
	UploadTime     string `json:"upload_time,omitempty"`
	Version        string `json:"version"`
	Yanked         bool   `json:"yanked"`
	YankedReason   string `json:"yanked_reason,omitempty"`
}

// DownloadsRecord is the pypkg.downloads record (besides title, url and snippet).
type DownloadsRecord struct {
	CacheHit bool `json:"cache_hit"`
	// Data is map[string]int64 (last_day, last_week, last_month) for kind recent, []HistoryDay
	// for kind overall.
	Data      any    `json:"data" schema:"object|array" doc:"kind recent: {last_day, last_week, last_month}; kind overall: [{category, date, downloads}]"`
	FetchedAt string `json:"fetched_at"`
	Kind      string `json:"kind"`
	Mirrors   bool   `json:"mirrors"`
	Package   string `json:"package"`
	Source    string `json:"source"`
}

// HistoryDay is one day of a download history.
type HistoryDay struct {
	Category  string `json:"category"`
	Date      string `json:"date"`
	Downloads int64  `json:"downloads"`
}
