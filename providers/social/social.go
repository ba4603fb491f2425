package social

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// Wire values of the request and of the records.
const (
	platformA     = "platform_a" // the short-post network: X
	platformB     = "platform_b" // the forum network: Reddit
	kindPosts     = "posts"
	kindProfiles  = "profiles"
	recordPost    = "post"
	recordProfile = "profile"
)

// Credits of a fresh platform_a details lookup, from X's pay-per-use price list (1 credit =
// USD 0.001): Posts: Read $0.005 per resource, User: Read $0.010 per resource. Platform_b
// (Reddit) lookups are free.
const (
	xPostReadCredits = 5
	xUserReadCredits = 10
)

// maxHandles bounds a platform_a profile lookup: X's users/by takes up to 100 usernames.
const maxHandles = 100

// Search is social.search (spec section 4.6): posts or profiles on the short-post network
// (platform_a, X) or the forum network (platform_b, Reddit).
var Search = &providers.Capability{
	ID:      "social.search",
	Fresh:   5 * time.Minute,
	Title:   "Social search",
	Summary: "Find recent posts or profiles on a short-post network (X) or a forum network (Reddit), with engagement counts.",
	Description: "Searches one social platform. `platform` is `platform_a` (the short-post network X) or `platform_b` " +
		"(the forum network Reddit); `kind` is `posts` (default) or `profiles`; `num` sets the page size (1 to 25, " +
		"default 10). On platform_a, `posts` runs X's recent search over the last 7 days and `query` takes X's search " +
		"operators (for example `from:NASA artemis -is:retweet lang:en`); `profiles` looks accounts up by handle, so " +
		"`query` lists 1 to 100 X handles separated by spaces or commas, with or without @ (X offers keyword user " +
		"search only to user-context tokens, not to this gateway's app token). On platform_b, `posts` searches Reddit " +
		"posts and `profiles` searches Reddit users by name or description. Every record has `platform` and `kind` " +
		"(post or profile). Posts carry `author` (handle), `author_name` (display name, platform_a), `created_at`, " +
		"and on platform_a `likes`, `reposts`, `replies`, `views`; on platform_b `subreddit`, `score`, `comments`, " +
		"`subscribers` (of the subreddit) and `link_url` (the linked page of a link post). Profiles carry `author`, " +
		"`author_name`, `created_at` (account creation), `verified`, and on platform_a `followers`, `following`, " +
		"`posts`, `location`; on platform_b `karma` and `followers`. Keys are left out when the source has no value. " +
		"Each platform needs this deployment's credentials for its network: platform_a an X API key (PROVIDER_X_KEY), " +
		"platform_b a Reddit Data API OAuth client (PROVIDER_REDDIT_KEY: Reddit serves API clients only with OAuth, " +
		"at 100 requests a minute); a platform whose credentials are not set answers capability_unavailable naming " +
		"the setting while the other keeps working. Reddit refuses some datacenter networks; that surfaces as provider_error. " +
		"Follow-ups: `more` (next page by the provider's cursor), `update` (change any request field; paging " +
		"restarts), and the record action `details`: the full post with engagement (platform_b: with its top " +
		"comments) or the full profile; platform_a details cost 5 credits a post and 10 a profile (X bills each " +
		"read), platform_b details are free; repeats are cached and free.",
	Topic: "Media and social",
	Request: `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["platform", "query"],
  "properties": {
    "platform": {
      "type": "string",
      "enum": ["platform_a", "platform_b"],
      "description": "Which network to search: platform_a is the short-post network (X), platform_b the forum network (Reddit)."
    },
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 300,
      "pattern": "\\S",
      "description": "What to search for. Posts: free text; on platform_a X search operators work (from:, lang:, -is:retweet, quotes, OR). Profiles on platform_a: 1 to 100 X handles separated by spaces or commas (\"NASA @SpaceX\"). Profiles on platform_b: part of a Reddit user name or profile description. Must not be blank."
    },
    "kind": {
      "type": "string",
      "enum": ["posts", "profiles"],
      "default": "posts",
      "description": "What the results are: posts (default) or profiles (accounts)."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25."
    }
  }
}`,
	Rules:  rules,
	Paging: providers.PagingToken,
	Actions: []providers.Action{{
		Name: "details",
		Description: "Looks the record up at its source: the full post with engagement (platform_a: text, likes, reposts, " +
			"replies, quotes, bookmarks, views, author; platform_b: body, score, upvote ratio, comment count, flair and " +
			"the top comments) or the full profile (bio, counts, verification, creation date). platform_a lookups are " +
			"billed by X per read: 5 credits a post, 10 credits a profile; platform_b lookups are free.",
		Kind:    providers.ActionLookup,
		Credits: xPostReadCredits,
		Run:     details,
	}},
	Cost: providers.Cost{
		Typical: 2,
		Basis: "2 credits per search page (execute, more, update) on either platform; details: platform_a 5 credits per post " +
			"and 10 per profile (X's $0.005 post read and $0.010 user read), platform_b free; repeats cached and free.",
	},
	Deadline: 15 * time.Second,
	// Both networks are keyed and either one alone serves its platform, so neither gates the
	// capability: a platform whose provider is not configured answers capability_unavailable
	// naming its setting (the description says so).
	Providers: []string{},
	Examples: []providers.Example{
		{Title: "Recent posts on the short-post network (X operators)", Body: providers.ExampleBody(`{"platform": "` + platformA + `", "query": "artemis from:NASA -is:retweet", "num": 5}`)},
		{Title: "Forum posts about a topic", Body: providers.ExampleBody(`{"platform": "` + platformB + `", "query": "rust async runtime", "num": 5}`)},
		{Title: "Profiles on the short-post network by handle", Body: providers.ExampleBody(`{"platform": "` + platformA + `", "query": "NASA @SpaceX", "kind": "` + kindProfiles + `"}`)},
		{Title: "Forum users by name", Body: providers.ExampleBody(`{"platform": "` + platformB + `", "query": "rustacean", "kind": "` + kindProfiles + `", "num": 3}`)},
	},
	Execute: execute,
	Record:  Record{},
}

// handlePattern is an X handle (username): letters, digits and underscores, at most 15.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)

// parseHandles reads a platform_a profile query: X handles separated by spaces or commas, each
// with an optional leading @, deduplicated case-insensitively in order. It returns a violation
// message when the query is not such a list.
func parseHandles(query string) ([]string, string) {
	parts := strings.FieldsFunc(query, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	seen := map[string]bool{}
	var out []string
	for _, p := range parts {
		h := strings.TrimPrefix(p, "@")
		if !handlePattern.MatchString(h) {
			return nil, fmt.Sprintf("with platform platform_a and kind profiles, query lists X handles to look up "+
				"(for example \"NASA @SpaceX\"); %q is not a handle (1 to 15 letters, digits or underscores)", providers.Clip(p, 40))
		}
		if k := strings.ToLower(h); !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, "with platform platform_a and kind profiles, query lists X handles to look up (for example \"NASA @SpaceX\")"
	}
	if len(out) > maxHandles {
		return nil, fmt.Sprintf("with platform platform_a and kind profiles, query lists at most %d X handles; it has %d", maxHandles, len(out))
	}
	return out, ""
}

// rules are the rules beyond the schema. The spec lists none for social.search; this one comes
// from the upstream: X looks profiles up by handle only (see doc.go), so a platform_a profile
// query must be a handle list.
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	if req.Str("platform") == platformA && req.Str("kind") == kindProfiles {
		if _, msg := parseHandles(req.Str("query")); msg != "" {
			return []providers.Violation{{Path: "/query", Message: msg}}
		}
	}
	return nil
}

func execute(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	req := call.Request
	query := strings.TrimSpace(req.Str("query"))
	kind := req.Str("kind")
	if kind == "" {
		kind = kindPosts
	}
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	if num > 25 {
		num = 25
	}
	switch req.Str("platform") {
	case platformA:
		u := call.Upstream(xID)
		if kind == kindProfiles {
			handles, msg := parseHandles(query)
			if msg != "" {
				return nil, providers.InvalidField("/query", msg)
			}
			return xProfiles(ctx, u, handles, num, call.State)
		}
		return xPosts(ctx, u, query, num, call.State)
	case platformB:
		return redditSearch(ctx, call.Upstream(redditID), query, kind, num, call.State)
	}
	return nil, providers.InvalidField("/platform", "platform must be platform_a or platform_b")
}

// firstPage tells whether the paging state asks for the first page (none is stored yet).
func firstPage(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// badState is the error of a stored paging state this package cannot read.
func badState() error {
	return &providers.Error{Code: providers.CodeInternal, Message: "the stored paging state of this search is unreadable"}
}

// recordRef is what the details action needs: the platform, the record kind and the source's id
// (X post or user id, Reddit post id) or, for Reddit users, the user name.
type recordRef struct {
	Platform string `json:"platform"`
	Kind     string `json:"kind"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
}

var (
	xIDPattern         = regexp.MustCompile(`^[0-9]{1,19}$`)
	redditIDPattern    = regexp.MustCompile(`^[a-z0-9]{1,13}$`)
	redditNamePattern  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,20}$`)
	redditSubNameRegex = regexp.MustCompile(`^[A-Za-z0-9_]{1,21}$`)
)

func (r recordRef) valid() bool {
	switch {
	case r.Platform == platformA && (r.Kind == recordPost || r.Kind == recordProfile):
		return xIDPattern.MatchString(r.ID)
	case r.Platform == platformB && r.Kind == recordPost:
		return redditIDPattern.MatchString(r.ID)
	case r.Platform == platformB && r.Kind == recordProfile:
		return redditNamePattern.MatchString(r.Name)
	}
	return false
}

// withRef sets the record's details reference, or offers no record action when the source gave
// no usable id.
func withRef(rec providers.Record, ref recordRef) providers.Record {
	if !ref.valid() {
		rec.Actions = []string{}
		return rec
	}
	rec.Ref = mustJSON(ref)
	return rec
}

func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref recordRef
	if err := json.Unmarshal(rec.Ref, &ref); err != nil || !ref.valid() {
		return nil, &providers.Error{Code: providers.CodeInternal, Message: "the record carries no usable social reference"}
	}
	switch {
	case ref.Platform == platformA && ref.Kind == recordPost:
		return xPostDetail(ctx, call.Upstream(xID), ref.ID)
	case ref.Platform == platformA:
		return xUserDetail(ctx, call.Upstream(xID), ref.ID)
	case ref.Kind == recordPost:
		return redditPostDetail(ctx, call.Upstream(redditID), ref.ID)
	default:
		return redditUserDetail(ctx, call.Upstream(redditID), ref.Name)
	}
}

// acceptJSON is the Accept header of every upstream call (fresh each time: the client keeps it).
func acceptJSON() http.Header { return http.Header{"Accept": {"application/json"}} }

// appendLink adds a link when the URL is known.
func appendLink(links []providers.Link, label, url string) []providers.Link {
	if url == "" {
		return links
	}
	return append(links, providers.Link{Label: label, URL: url})
}

// defaultRetry is the Retry-After given for an upstream throttle when the upstream's own reset
// time is not available (the shared client keeps only Retry-After; X and Reddit send their reset
// in x-rate-limit-reset / x-ratelimit-reset instead).
const defaultRetry = 60 * time.Second
