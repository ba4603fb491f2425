package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// maxReadmeChars bounds the README text of a details answer (characters, not bytes).
const maxReadmeChars = 100_000

// readmeAnswer is GitHub's content-file object of GET /repos/{owner}/{repo}/readme.
type readmeAnswer struct {
	Path     lenient.Str `json:"path"`
	Size     lenient.Int `json:"size"`
	Encoding lenient.Str `json:"encoding"`
	Content  *string     `json:"content"`
	HTMLURL  lenient.Str `json:"html_url"`
}

// readmeDetails is the details lookup: the repository's preferred README.
func readmeDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref repoRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !validRef(ref.Owner, ref.Repo) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record names no GitHub repository, so it has no README")
	}
	u := call.Upstream(ProviderID)
	path := "/repos/" + ref.Owner + "/" + ref.Repo + "/readme"
	resp, err := get(ctx, u, path, nil, mediaJSON)
	if err != nil {
		return nil, readmeError(err)
	}
	var ans readmeAnswer
	if err := u.Decode(resp, &ans); err != nil {
		return nil, err
	}

	var text []byte
	switch {
	case ans.Content != nil && strings.EqualFold(string(ans.Encoding), "base64"):
		// GitHub wraps the base64 text at 60 columns; the decoder skips the newlines.
		text, err = base64.StdEncoding.DecodeString(*ans.Content)
		if err != nil {
			return nil, providers.Errorf(providers.CodeProviderError, "github answered a README whose base64 content does not decode")
		}
	case ans.Size.OK && ans.Size.V == 0:
		// an empty README file
	default:
		// Over 1 MB GitHub leaves content empty with encoding "none"; the raw media type serves
		// the file itself (within the client's 8 MiB limit).
		raw, err := get(ctx, u, path, nil, mediaRaw)
		if err != nil {
			return nil, readmeError(err)
		}
		text = raw.Body
	}

	markdown, truncated := boundText(text, maxReadmeChars)
	fullName := ref.Owner + "/" + ref.Repo
	body := &ReadmeDetail{FullName: fullName, Markdown: markdown, Truncated: truncated, Path: string(ans.Path)}
	var links []providers.Link
	if rec.URL != "" {
		links = append(links, providers.Link{Label: "Repository " + fullName, URL: rec.URL})
	}
	if isWebURL(string(ans.HTMLURL)) {
		body.HTMLURL = string(ans.HTMLURL)
		links = append(links, providers.Link{Label: "README on GitHub", URL: string(ans.HTMLURL)})
	}
	if links == nil {
		links = []providers.Link{}
	}
	return &providers.Detail{Body: body, Links: links}, nil
}

// readmeError maps a refused README lookup: GitHub's 404 means the repository has no README (or
// is gone, or private to the token).
func readmeError(err error) error {
	if e, _, ok := upstreamError(err); ok && e.UpstreamStatus == http.StatusNotFound {
		return providers.Errorf(providers.CodeNotFound, "the repository has no README")
	}
	return commonError(err)
}

// boundText makes valid UTF-8 of b (a stray byte becomes U+FFFD), drops a leading byte-order mark
// and keeps at most max characters.
func boundText(b []byte, max int) (string, bool) {
	s := strings.TrimPrefix(strings.ToValidUTF8(string(b), "\uFFFD"), "\uFEFF")
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}
