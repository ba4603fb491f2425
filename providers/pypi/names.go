package pypi

import (
	"net/url"
	"regexp"
	"strings"
)

// The request fields every capability of this package shares (spec 4.19): a project name and a
// release version, with exactly the spec's limits and patterns.
const (
	packageProperty = `"package": {
      "type": "string",
      "minLength": 1,
      "maxLength": 214,
      "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$",
      "description": "Project name on the Python package index, for example requests or Django: letters, digits, '.', '_' and '-', starting and ending with a letter or digit, 1 to 214 characters. Case and runs of '-', '_' and '.' do not matter: names are normalized as PEP 503 says (Flask_SQLAlchemy, flask.sqlalchemy and flask-sqlalchemy are one project)."
    }`
	versionProperty = `"version": {
      "type": "string",
      "minLength": 1,
      "maxLength": 128,
      "pattern": "^[A-Za-z0-9][A-Za-z0-9.!+_-]*$",
      "description": "Release version as published, for example 2.32.3 or 5.0rc1 (1 to 128 characters: letters, digits and . ! + _ -). Omit it for the latest release."
    }`
)

var (
	separatorRun = regexp.MustCompile(`[-_.]+`)
	projectName  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	releaseName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.!+_-]*$`)
)

// normalizeName is PEP 503's normalized project name: lower case, every run of '-', '_' and '.'
// replaced by one '-'.
func normalizeName(name string) string {
	return strings.ToLower(separatorRun.ReplaceAllString(strings.TrimSpace(name), "-"))
}

// projectPath is the JSON API path of a project (latest release) or of one of its releases.
func projectPath(name, version string) string {
	if version == "" {
		return "/pypi/" + url.PathEscape(name) + "/json"
	}
	return "/pypi/" + url.PathEscape(name) + "/" + url.PathEscape(version) + "/json"
}

// isWebURL tells whether s is an absolute http(s) URL with a host.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// indexPage is the index's web page of a project or release under the configured base URL.
func indexPage(base, name, version string) string {
	if base == "" || name == "" {
		return ""
	}
	p := strings.TrimRight(base, "/") + "/project/" + url.PathEscape(name) + "/"
	if version != "" {
		p += url.PathEscape(version) + "/"
	}
	return p
}
