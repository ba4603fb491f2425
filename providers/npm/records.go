package npm

// PackageRecord is a jspkg.package record (besides title, url and snippet): one version's
// manifest, or the latest version of the full document.
type PackageRecord struct {
	// Dependencies is the manifest's own name → range map (present, possibly empty, when the
	// manifest has one).
	Dependencies map[string]string `json:"dependencies,omitzero"`
	Dist         *Dist             `json:"dist,omitempty"`
	// DistTags is keyed by the publisher's own tag names.
	DistTags map[string]string `json:"dist_tags,omitempty"`
	// License is a string or the object the manifest gives (free-form in package.json).
	License any `json:"license,omitempty" doc:"an SPDX string, or the object the manifest gives"`
	// Maintainers are the registry's maintainer objects as published (free-form members).
	Maintainers []map[string]any `json:"maintainers,omitempty"`
	Package     string           `json:"package"`
	// Repository is a string or the {type, url, directory} object of package.json, as published.
	Repository   any    `json:"repository,omitempty" doc:"a string, or the {type, url, directory} object of package.json"`
	Version      string `json:"version,omitempty"`
	VersionCount *int   `json:"version_count,omitempty" doc:"full document only"`
}

// Dist is the tarball of a version and how to check it (the registry's own member names).
type Dist struct {
	FileCount    *int64 `json:"fileCount,omitempty"`
	Integrity    string `json:"integrity,omitempty"`
	Shasum       string `json:"shasum,omitempty"`
	Tarball      string `json:"tarball,omitempty"`
	UnpackedSize *int64 `json:"unpackedSize,omitempty"`
}

// SearchRecord is a jspkg.search record (besides title, url and snippet): one search hit.
type SearchRecord struct {
	Keywords []string `json:"keywords,omitempty"`
	// Links is keyed by the registry's link names (npm, homepage, repository, bugs).
	Links map[string]string `json:"links,omitempty"`
	// Maintainers are the registry's maintainer objects as published (free-form members).
	Maintainers []map[string]any `json:"maintainers,omitempty"`
	Package     string           `json:"package"`
	PublishedAt string           `json:"published_at,omitempty"`
	Repository  string           `json:"repository,omitempty"`
	Score       *Score           `json:"score,omitempty"`
	SearchScore *float64         `json:"search_score,omitempty"`
	Version     string           `json:"version,omitempty"`
}

// Score is a search hit's score: final and its parts.
type Score struct {
	Detail *ScoreDetail `json:"detail,omitempty"`
	Final  *float64     `json:"final,omitempty"`
}

// ScoreDetail are the parts of a search score.
type ScoreDetail struct {
	Maintenance *float64 `json:"maintenance,omitempty"`
	Popularity  *float64 `json:"popularity,omitempty"`
	Quality     *float64 `json:"quality,omitempty"`
}

// DownloadsRecord is the jspkg.downloads record (besides title and snippet).
type DownloadsRecord struct {
	// Downloads is the total (an integer) for kind point, [{day, downloads}] for kind range.
	Downloads any    `json:"downloads" schema:"integer|array" doc:"kind point: the total (integer); kind range: [{day, downloads}]"`
	End       string `json:"end"`
	Kind      string `json:"kind"`
	Package   string `json:"package"`
	Start     string `json:"start"`
}
