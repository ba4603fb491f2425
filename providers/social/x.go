package social

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Field selections sent to X. Search and the username lookup ask for what the records show;
// the details lookups ask for the full post and the full profile.
const (
	xSearchTweetFields = "created_at,public_metrics,author_id,lang"
	xSearchUserFields  = "username,name,verified,public_metrics,location"
	xLookupUserFields  = "username,name,verified,public_metrics,location,description,created_at"
	xDetailTweetFields = "created_at,public_metrics,author_id,lang,conversation_id,note_tweet,possibly_sensitive,referenced_tweets,reply_settings"
	xDetailUserFields  = "created_at,description,location,name,username,verified,verified_type,public_metrics,profile_image_url,url,protected,pinned_tweet_id"
)

// xMinResults is the smallest max_results recent search accepts (10..100).
const xMinResults = 10

// xTweet is a Post object of the X API v2 (only the fields this adapter reads).
type xTweet struct {
	ID                lenient.ID                  `json:"id"`
	Text              lenient.Str                 `json:"text"`
	AuthorID          lenient.ID                  `json:"author_id"`
	CreatedAt         lenient.Str                 `json:"created_at"`
	Lang              lenient.Str                 `json:"lang"`
	ConversationID    lenient.ID                  `json:"conversation_id"`
	PossiblySensitive lenient.Bool                `json:"possibly_sensitive"`
	ReplySettings     lenient.Str                 `json:"reply_settings"`
	PublicMetrics     lenient.Obj[xTweetMetrics]  `json:"public_metrics"`
	NoteTweet         lenient.Obj[xNoteTweet]     `json:"note_tweet"`
	ReferencedTweets  lenient.List[xReferenceRef] `json:"referenced_tweets"`
}

type xTweetMetrics struct {
	Retweets    lenient.Int `json:"retweet_count"`
	Reposts     lenient.Int `json:"repost_count"` // the newer name in X's own OpenAPI; read when retweet_count is absent
	Replies     lenient.Int `json:"reply_count"`
	Likes       lenient.Int `json:"like_count"`
	Quotes      lenient.Int `json:"quote_count"`
	Bookmarks   lenient.Int `json:"bookmark_count"`
	Impressions lenient.Int `json:"impression_count"`
}

func (m *xTweetMetrics) reposts() lenient.Int {
	if m.Retweets.OK {
		return m.Retweets
	}
	return m.Reposts
}

type xNoteTweet struct {
	Text lenient.Str `json:"text"`
}

type xReferenceRef struct {
	Type lenient.Str `json:"type"`
	ID   lenient.ID  `json:"id"`
}

// xUser is a User object of the X API v2.
type xUser struct {
	ID              lenient.ID                `json:"id"`
	Username        lenient.Str               `json:"username"`
	Name            lenient.Str               `json:"name"`
	Verified        lenient.Bool              `json:"verified"`
	VerifiedType    lenient.Str               `json:"verified_type"`
	Location        lenient.Str               `json:"location"`
	Description     lenient.Str               `json:"description"`
	CreatedAt       lenient.Str               `json:"created_at"`
	Protected       lenient.Bool              `json:"protected"`
	URL             lenient.Str               `json:"url"`
	ProfileImageURL lenient.Str               `json:"profile_image_url"`
	PinnedTweetID   lenient.ID                `json:"pinned_tweet_id"`
	PublicMetrics   lenient.Obj[xUserMetrics] `json:"public_metrics"`
}

type xUserMetrics struct {
	Followers lenient.Int `json:"followers_count"`
	Following lenient.Int `json:"following_count"`
	Tweets    lenient.Int `json:"tweet_count"`
	PostCount lenient.Int `json:"post_count"` // the newer name in X's own OpenAPI; read when tweet_count is absent
	Listed    lenient.Int `json:"listed_count"`
	Likes     lenient.Int `json:"like_count"`
	Media     lenient.Int `json:"media_count"`
}

func (m *xUserMetrics) posts() lenient.Int {
	if m.Tweets.OK {
		return m.Tweets
	}
	return m.PostCount
}

// xProblem is an entry of X's errors array, or X's top-level problem body (RFC 7807 style).
type xProblem struct {
	Title        lenient.Str `json:"title"`
	Detail       lenient.Str `json:"detail"`
	Type         lenient.Str `json:"type"`
	Message      lenient.Str `json:"message"`
	Value        lenient.Str `json:"value"`
	ResourceType lenient.Str `json:"resource_type"`
	Parameter    lenient.Str `json:"parameter"`
	Status       lenient.Int `json:"status"`
}

func (p xProblem) text() string {
	for _, s := range []lenient.Str{p.Message, p.Detail, p.Title} {
		if s != "" {
			return string(s)
		}
	}
	return ""
}

type xIncludes struct {
	Users lenient.List[rawObject] `json:"users"`
}

type xMeta struct {
	ResultCount lenient.Int `json:"result_count"`
	NextToken   lenient.Str `json:"next_token"`
}

// xSearchResponse is the recent search answer: {data, includes, meta, errors}.
type xSearchResponse struct {
	Data     lenient.List[rawObject] `json:"data"`
	Includes lenient.Obj[xIncludes]  `json:"includes"`
	Meta     lenient.Obj[xMeta]      `json:"meta"`
	Errors   lenient.List[xProblem]  `json:"errors"`
}

// xItem is one post with its author as X sent them; the paging state keeps the items of a
// fetched page that were not shown yet, so the following page needs no new upstream read.
type xItem struct {
	Tweet  rawObject `json:"tweet"`
	Author rawObject `json:"author,omitempty"`
}

// xPostState is the paging state of a platform_a post search.
type xPostState struct {
	NextToken string  `json:"next_token,omitempty"`
	Buffer    []xItem `json:"buffer,omitempty"`
}

// xPosts runs one page of X recent search. X's max_results is 10..100 while num is 1..25: a
// page asks X for max(num still missing, 10) posts, shows num and keeps the rest in the paging
// state, so `more` serves them without a new (billed) read and continues with X's next_token
// once they are used up.
func xPosts(ctx context.Context, u *providers.Upstream, query string, num int, raw json.RawMessage) (*providers.Page, error) {
	var st xPostState
	first := firstPage(raw)
	if !first {
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, badState()
		}
	}
	items := st.Buffer
	token := st.NextToken
	if first || (len(items) < num && token != "") {
		want := max(num-len(items), xMinResults)
		q := url.Values{
			"query":        {query},
			"max_results":  {fmt.Sprint(want)},
			"tweet.fields": {xSearchTweetFields},
			"expansions":   {"author_id"},
			"user.fields":  {xSearchUserFields},
		}
		if token != "" {
			q.Set("next_token", token)
		}
		var resp xSearchResponse
		if err := xGet(ctx, u, "/2/tweets/search/recent", q, &resp, "/query"); err != nil {
			return nil, err
		}
		if resp.Data == nil && resp.Meta.V == nil && len(resp.Errors) > 0 {
			return nil, xProblemError(resp.Errors[0], "/query")
		}
		authors := map[string]rawObject{}
		if inc := resp.Includes.V; inc != nil {
			for _, raw := range inc.Users {
				var usr xUser
				if lenient.Unmarshal(raw, &usr) == nil && usr.ID != "" {
					authors[string(usr.ID)] = raw
				}
			}
		}
		for _, raw := range resp.Data {
			var tw xTweet
			if lenient.Unmarshal(raw, &tw) != nil {
				continue
			}
			items = append(items, xItem{Tweet: raw, Author: authors[string(tw.AuthorID)]})
		}
		token = ""
		if m := resp.Meta.V; m != nil {
			token = string(m.NextToken)
		}
	}
	n := min(num, len(items))
	page := &providers.Page{Records: make([]providers.Record, 0, n)}
	for _, it := range items[:n] {
		page.Records = append(page.Records, xPostRecord(it))
	}
	rest := items[n:]
	if len(rest) > 0 || token != "" {
		page.HasMore = true
		page.Next = mustJSON(xPostState{NextToken: token, Buffer: rest})
	}
	return page, nil
}

// xPostRecord maps one post (with its author when X expanded it) to a record.
func xPostRecord(it xItem) providers.Record {
	var tw xTweet
	_ = json.Unmarshal(it.Tweet, &tw)
	var author xUser
	if len(it.Author) > 0 {
		_ = json.Unmarshal(it.Author, &author)
	}
	text := oneLine(string(tw.Text))
	data := &Record{Platform: platformA, Kind: recordPost, Author: string(author.Username), AuthorName: string(author.Name),
		CreatedAt: isoTime(tw.CreatedAt)}
	if m := tw.PublicMetrics.V; m != nil {
		data.Likes, data.Reposts, data.Replies, data.Views = intOf(m.Likes), intOf(m.reposts()), intOf(m.Replies), intOf(m.Impressions)
	}
	title := providers.Clip(text, 100)
	if title == "" {
		title = "Post " + string(tw.ID)
		if author.Username != "" {
			title = "Post by @" + string(author.Username)
		}
	}
	rec := providers.Record{Title: title, URL: xPostURL(string(author.Username), string(tw.ID)), Data: data}
	if text != "" && text != title {
		rec.Snippet = text
	}
	return withRef(rec, recordRef{Platform: platformA, Kind: recordPost, ID: string(tw.ID)})
}

// xPostURL is the public address of a post (the author-less form when the handle is unknown).
func xPostURL(username, id string) string {
	if !xIDPattern.MatchString(id) {
		return ""
	}
	if handlePattern.MatchString(username) {
		return xSite + "/" + username + "/status/" + id
	}
	return xSite + "/i/web/status/" + id
}

func xProfileURL(username string) string {
	if !handlePattern.MatchString(username) {
		return ""
	}
	return xSite + "/" + username
}

// xUsersResponse is the users/by answer: found users in data, the others in errors.
type xUsersResponse struct {
	Data   lenient.List[xUser]    `json:"data"`
	Errors lenient.List[xProblem] `json:"errors"`
}

// xProfileState is the paging state of a platform_a profile lookup: how many handles of the
// query are done.
type xProfileState struct {
	Offset int `json:"offset"`
}

// xProfiles looks one page of the query's handles up with GET /2/users/by (app-only auth;
// X's keyword user search needs a user-context token, see doc.go).
func xProfiles(ctx context.Context, u *providers.Upstream, handles []string, num int, raw json.RawMessage) (*providers.Page, error) {
	var st xProfileState
	if !firstPage(raw) {
		if err := json.Unmarshal(raw, &st); err != nil || st.Offset < 0 {
			return nil, badState()
		}
	}
	page := &providers.Page{Records: []providers.Record{}}
	if st.Offset >= len(handles) {
		return page, nil
	}
	batch := handles[st.Offset:min(st.Offset+num, len(handles))]
	q := url.Values{"usernames": {strings.Join(batch, ",")}, "user.fields": {xLookupUserFields}}
	var resp xUsersResponse
	if err := xGet(ctx, u, "/2/users/by", q, &resp, "/query"); err != nil {
		return nil, err
	}
	// Records follow the order of the query's handles.
	byName := map[string]xUser{}
	for _, usr := range resp.Data {
		if usr.Username != "" {
			byName[strings.ToLower(string(usr.Username))] = usr
		}
	}
	var missing []string
	for _, h := range batch {
		usr, ok := byName[strings.ToLower(h)]
		if !ok {
			missing = append(missing, h)
			continue
		}
		page.Records = append(page.Records, xProfileRecord(usr))
	}
	if len(missing) > 0 {
		page.Notes = []string{xMissingNote(missing, resp.Errors)}
	}
	if next := st.Offset + len(batch); next < len(handles) {
		page.HasMore = true
		page.Next = mustJSON(xProfileState{Offset: next})
	}
	return page, nil
}

// xMissingNote names the handles X returned no profile for, with X's reason where it gave one.
func xMissingNote(missing []string, problems []xProblem) string {
	reasons := map[string]string{}
	for _, p := range problems {
		if p.Value != "" {
			reasons[strings.ToLower(string(p.Value))] = p.text()
		}
	}
	parts := make([]string, 0, len(missing))
	for _, h := range missing {
		part := "@" + h
		if r := strings.TrimSuffix(reasons[strings.ToLower(h)], "."); r != "" {
			part += " (" + r + ")"
		}
		parts = append(parts, part)
	}
	return "X returned no profile for " + strings.Join(parts, ", ") + "."
}

// xProfileRecord maps one X user to a profile record.
func xProfileRecord(usr xUser) providers.Record {
	data := &Record{Platform: platformA, Kind: recordProfile, Author: string(usr.Username), AuthorName: string(usr.Name),
		CreatedAt: isoTime(usr.CreatedAt), Verified: boolOf(usr.Verified), Location: string(usr.Location)}
	if m := usr.PublicMetrics.V; m != nil {
		data.Followers, data.Following, data.Posts = intOf(m.Followers), intOf(m.Following), intOf(m.posts())
	}
	title := string(usr.Name)
	switch {
	case title != "" && usr.Username != "":
		title += " (@" + string(usr.Username) + ")"
	case usr.Username != "":
		title = "@" + string(usr.Username)
	case title == "":
		title = "X account " + string(usr.ID)
	}
	rec := providers.Record{Title: title, URL: xProfileURL(string(usr.Username)), Snippet: oneLine(string(usr.Description)), Data: data}
	return withRef(rec, recordRef{Platform: platformA, Kind: recordProfile, ID: string(usr.ID)})
}

// xPostResponse is the answer of GET /2/tweets/{id}: {data, includes, errors}.
type xPostResponse struct {
	Data     lenient.Obj[xTweet]    `json:"data"`
	Includes lenient.Obj[xIncludes] `json:"includes"`
	Errors   lenient.List[xProblem] `json:"errors"`
}

// xPostDetail is the details action of a platform_a post: the full post (long posts' full text
// from note_tweet) with every public engagement count and its author.
func xPostDetail(ctx context.Context, u *providers.Upstream, id string) (*providers.Detail, error) {
	q := url.Values{
		"tweet.fields": {xDetailTweetFields},
		"expansions":   {"author_id"},
		"user.fields":  {xSearchUserFields},
	}
	var resp xPostResponse
	if err := xGet(ctx, u, "/2/tweets/"+id, q, &resp, ""); err != nil {
		return nil, err
	}
	tw := resp.Data.V
	if tw == nil {
		return nil, xLookupMissing("post", resp.Errors)
	}
	var author xUser
	if inc := resp.Includes.V; inc != nil {
		for _, raw := range inc.Users {
			var usr xUser
			if lenient.Unmarshal(raw, &usr) == nil && usr.ID == tw.AuthorID {
				author = usr
			}
		}
	}
	text := string(tw.Text)
	if nt := tw.NoteTweet.V; nt != nil && nt.Text != "" {
		text = string(nt.Text)
	}
	body := &XPostDetail{Platform: platformA, Kind: recordPost, ID: orID(tw.ID, id), Text: text, CreatedAt: isoTime(tw.CreatedAt),
		Lang: string(tw.Lang), ConversationID: string(tw.ConversationID), PossiblySensitive: boolOf(tw.PossiblySensitive),
		ReplySettings: string(tw.ReplySettings)}
	if m := tw.PublicMetrics.V; m != nil {
		eng := XEngagement{Likes: intOf(m.Likes), Reposts: intOf(m.reposts()), Replies: intOf(m.Replies), Quotes: intOf(m.Quotes),
			Bookmarks: intOf(m.Bookmarks), Views: intOf(m.Impressions)}
		if eng != (XEngagement{}) {
			body.Engagement = &eng
		}
	}
	for _, r := range tw.ReferencedTweets {
		if r.ID != "" {
			body.ReferencedPosts = append(body.ReferencedPosts, XReference{ID: string(r.ID), Type: string(r.Type)})
		}
	}
	if author.ID != "" || author.Username != "" {
		a := &XAuthor{ID: string(author.ID), Username: string(author.Username), Name: string(author.Name),
			Verified: boolOf(author.Verified), Location: string(author.Location)}
		if m := author.PublicMetrics.V; m != nil {
			a.Followers = intOf(m.Followers)
		}
		body.Author = a
	}
	postURL := xPostURL(string(author.Username), orID(tw.ID, id))
	body.URL = postURL
	var links []providers.Link
	links = appendLink(links, "Post on X", postURL)
	links = appendLink(links, "Author on X", xProfileURL(string(author.Username)))
	return &providers.Detail{Body: body, Links: orNoLinks(links)}, nil
}

// xUserResponse is the answer of GET /2/users/{id}: {data, errors}.
type xUserResponse struct {
	Data   lenient.Obj[xUser]     `json:"data"`
	Errors lenient.List[xProblem] `json:"errors"`
}

// xUserDetail is the details action of a platform_a profile: the full public profile. X bills a
// user read ($0.010), so the lookup costs 10 credits rather than the action's 5.
func xUserDetail(ctx context.Context, u *providers.Upstream, id string) (*providers.Detail, error) {
	q := url.Values{"user.fields": {xDetailUserFields}}
	var resp xUserResponse
	if err := xGet(ctx, u, "/2/users/"+id, q, &resp, ""); err != nil {
		return nil, err
	}
	usr := resp.Data.V
	if usr == nil {
		return nil, xLookupMissing("account", resp.Errors)
	}
	body := &XProfileDetail{Platform: platformA, Kind: recordProfile, ID: orID(usr.ID, id), Username: string(usr.Username),
		Name: string(usr.Name), Description: string(usr.Description), Location: string(usr.Location),
		CreatedAt: isoTime(usr.CreatedAt), Verified: boolOf(usr.Verified), VerifiedType: string(usr.VerifiedType),
		Protected: boolOf(usr.Protected), Website: string(usr.URL), ProfileImageURL: string(usr.ProfileImageURL),
		PinnedPostID: string(usr.PinnedTweetID)}
	if m := usr.PublicMetrics.V; m != nil {
		counts := XCounts{Followers: intOf(m.Followers), Following: intOf(m.Following), Posts: intOf(m.posts()),
			Listed: intOf(m.Listed), Likes: intOf(m.Likes), Media: intOf(m.Media)}
		if counts != (XCounts{}) {
			body.Counts = &counts
		}
	}
	profile := xProfileURL(string(usr.Username))
	body.URL = profile
	var links []providers.Link
	links = appendLink(links, "Profile on X", profile)
	links = appendLink(links, "Website", string(usr.URL))
	return &providers.Detail{Body: body, Links: orNoLinks(links), Credits: providers.Credits(xUserReadCredits)}, nil
}

func orID(got lenient.ID, asked string) string {
	if got != "" {
		return string(got)
	}
	return asked
}

func orNoLinks(l []providers.Link) []providers.Link {
	if l == nil {
		return []providers.Link{}
	}
	return l
}

// xLookupMissing is the error of a lookup X answered with HTTP 200 and only errors (the post was
// deleted, the account suspended, or the resource is protected).
func xLookupMissing(what string, problems []xProblem) error {
	msg := "X has no such " + what + " (it was deleted, suspended or made private)"
	if len(problems) > 0 {
		if t := problems[0].text(); t != "" {
			msg = "X has no such " + what + ": " + t
		}
		if strings.HasSuffix(string(problems[0].Type), "/resource-unavailable") || strings.HasSuffix(string(problems[0].Type), "/not-authorized-for-resource") {
			msg = "X does not show this " + what + ": " + problems[0].text()
		}
	}
	return &providers.Error{Code: providers.CodeNotFound, Message: msg}
}

// xGet calls X and decodes the answer, mapping X's documented error bodies: a problem object
// {title, detail, type, status} or {errors: [...], title, detail, type}. queryPath names the
// request field a 400 blames ("" for lookups, where a 400 is the gateway's fault).
func xGet(ctx context.Context, u *providers.Upstream, path string, q url.Values, out any, queryPath string) error {
	resp, err := u.Get(ctx, path, q, acceptJSON())
	if err != nil {
		return xError(err, queryPath)
	}
	return u.Decode(resp, out)
}

// xErrorBody is an X error answer: a top-level problem, possibly with an errors array.
type xErrorBody struct {
	xProblem
	Errors lenient.List[xProblem] `json:"errors"`
	Reason lenient.Str            `json:"reason"`
}

func xError(err error, queryPath string) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	var body xErrorBody
	_ = json.Unmarshal(e.Body, &body)
	text := body.text()
	if len(body.Errors) > 0 {
		if t := body.Errors[0].text(); t != "" && (body.Errors[0].Message != "" || text == "") {
			text = t
		}
	}
	if text == "" {
		text = http.StatusText(e.UpstreamStatus)
	}
	typ := string(body.Type)
	if typ == "" && len(body.Errors) > 0 {
		typ = string(body.Errors[0].Type)
	}
	switch status := e.UpstreamStatus; {
	case status == http.StatusBadRequest && queryPath != "":
		return providers.InvalidField(queryPath, "X refused the query: "+text)
	case status == http.StatusUnauthorized:
		return providerError(e, false, "X refused this gateway's credentials (HTTP 401: "+text+"); the deployment's X key (PROVIDER_X_KEY) needs checking")
	case status == http.StatusPaymentRequired:
		return &providers.Error{Code: providers.CodeProviderAllowance, Message: "this deployment's X API credits are used up (HTTP 402: " + text + ")",
			UpstreamStatus: status, Body: e.Body, Cause: e}
	case status == http.StatusForbidden:
		msg := "X refused the request (HTTP 403: " + text + ")"
		if strings.HasSuffix(typ, "/client-forbidden") {
			msg = "X refused this gateway's app (HTTP 403: " + text + "); the deployment's X app needs API access"
		}
		return providerError(e, false, msg)
	case status == http.StatusNotFound && queryPath == "":
		return &providers.Error{Code: providers.CodeNotFound, Message: "X has no such post or account (HTTP 404)", UpstreamStatus: status, Cause: e}
	case status == http.StatusTooManyRequests:
		if strings.HasSuffix(typ, "/usage-capped") {
			return &providers.Error{Code: providers.CodeProviderAllowance, Message: "X's usage cap for this deployment is reached (" + text + ")",
				UpstreamStatus: status, Body: e.Body, Cause: e}
		}
		wait := e.RetryAfter
		if wait <= 0 {
			wait = defaultRetry
		}
		return &providers.Error{Code: providers.CodeRateLimited, Message: "X is rate limiting this gateway (its windows are 15 minutes); retry shortly",
			RetryAfter: wait, UpstreamStatus: status, Body: e.Body, Cause: e}
	case status >= 500:
		return providerError(e, true, fmt.Sprintf("X failed (HTTP %d: %s)", status, text))
	default:
		return providerError(e, false, fmt.Sprintf("X refused the request (HTTP %d: %s)", status, text))
	}
}

// xProblemError maps an errors-only HTTP 200 search answer.
func xProblemError(p xProblem, queryPath string) error {
	t := p.text()
	if t == "" {
		t = "no details given"
	}
	if strings.HasSuffix(string(p.Type), "/invalid-request") && queryPath != "" {
		return providers.InvalidField(queryPath, "X refused the query: "+t)
	}
	return &providers.Error{Code: providers.CodeProviderError, Message: "X answered with an error: " + t, Retryable: ptr(false)}
}

// providerError is a provider_error that keeps the upstream status and body of e.
func providerError(e *providers.Error, retryable bool, msg string) *providers.Error {
	return &providers.Error{Code: providers.CodeProviderError, Message: msg, Retryable: ptr(retryable),
		UpstreamStatus: e.UpstreamStatus, Body: e.Body, Cause: e}
}

func ptr[T any](v T) *T { return &v }
