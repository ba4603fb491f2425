package social

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/capgate/capgate/providers"
)

// redditTopComments is how many top-level comments the details of a Reddit post carry.
const redditTopComments = 10

// redditListing is Reddit's Listing thing: {kind: "Listing", data: {after, dist, children}}.
type redditListing struct {
	Kind optStr                 `json:"kind"`
	Data obj[redditListingData] `json:"data"`
}

type redditListingData struct {
	After    optStr            `json:"after"`
	Dist     optInt            `json:"dist"`
	Children list[redditThing] `json:"children"`
}

// redditThing is one child of a listing: {kind: t1|t2|t3|t5|more, data: {...}}.
type redditThing struct {
	Kind optStr    `json:"kind"`
	Data rawObject `json:"data"`
}

// redditPost is a submission (t3), only the fields this adapter reads.
type redditPost struct {
	ID                   optStr   `json:"id"`
	Title                optStr   `json:"title"`
	Author               optStr   `json:"author"`
	Subreddit            optStr   `json:"subreddit"`
	Selftext             optStr   `json:"selftext"`
	Score                optInt   `json:"score"`
	UpvoteRatio          optFloat `json:"upvote_ratio"`
	NumComments          optInt   `json:"num_comments"`
	SubredditSubscribers optInt   `json:"subreddit_subscribers"`
	CreatedUTC           optFloat `json:"created_utc"`
	Permalink            optStr   `json:"permalink"`
	URL                  optStr   `json:"url"`
	URLOverriddenByDest  optStr   `json:"url_overridden_by_dest"`
	IsSelf               optBool  `json:"is_self"`
	IsVideo              optBool  `json:"is_video"`
	Over18               optBool  `json:"over_18"`
	Spoiler              optBool  `json:"spoiler"`
	Locked               optBool  `json:"locked"`
	Stickied             optBool  `json:"stickied"`
	LinkFlairText        optStr   `json:"link_flair_text"`
	Domain               optStr   `json:"domain"`
	NumCrossposts        optInt   `json:"num_crossposts"`
	Edited               optFloat `json:"edited"` // false, or the Unix time of the edit
	Distinguished        optStr   `json:"distinguished"`
	RemovedByCategory    optStr   `json:"removed_by_category"`
}

// redditUser is an account (t2), as search and about.json return it.
type redditUser struct {
	ID               optStr              `json:"id"`
	Name             optStr              `json:"name"`
	CreatedUTC       optFloat            `json:"created_utc"`
	LinkKarma        optInt              `json:"link_karma"`
	CommentKarma     optInt              `json:"comment_karma"`
	AwardeeKarma     optInt              `json:"awardee_karma"`
	AwarderKarma     optInt              `json:"awarder_karma"`
	TotalKarma       optInt              `json:"total_karma"`
	Verified         optBool             `json:"verified"`
	HasVerifiedEmail optBool             `json:"has_verified_email"`
	IsEmployee       optBool             `json:"is_employee"`
	IsMod            optBool             `json:"is_mod"`
	IsGold           optBool             `json:"is_gold"`
	IsSuspended      optBool             `json:"is_suspended"`
	AcceptFollowers  optBool             `json:"accept_followers"`
	IconImg          optStr              `json:"icon_img"`
	SnoovatarImg     optStr              `json:"snoovatar_img"`
	Subreddit        obj[redditUserSubr] `json:"subreddit"`
}

// redditUserSubr is the profile subreddit (u_<name>) of an account: its title, bio and the
// number of followers (subscribers of the profile).
type redditUserSubr struct {
	Title             optStr  `json:"title"`
	PublicDescription optStr  `json:"public_description"`
	Subscribers       optInt  `json:"subscribers"`
	Over18            optBool `json:"over_18"`
}

func (usr *redditUser) karma() optInt {
	if usr.TotalKarma.OK {
		return usr.TotalKarma
	}
	if usr.LinkKarma.OK || usr.CommentKarma.OK {
		return optInt{V: usr.LinkKarma.V + usr.CommentKarma.V, OK: true}
	}
	return optInt{}
}

// redditComment is a comment (t1).
type redditComment struct {
	ID            optStr   `json:"id"`
	Author        optStr   `json:"author"`
	Body          optStr   `json:"body"`
	Score         optInt   `json:"score"`
	CreatedUTC    optFloat `json:"created_utc"`
	Permalink     optStr   `json:"permalink"`
	Stickied      optBool  `json:"stickied"`
	Distinguished optStr   `json:"distinguished"`
}

// redditState is the paging state of a platform_b search: Reddit's after cursor.
type redditState struct {
	After string `json:"after"`
}

// redditSearch runs one page of GET /search: type=link for posts, type=user for profiles.
func redditSearch(ctx context.Context, u *providers.Upstream, query, kind string, num int, raw json.RawMessage) (*providers.Page, error) {
	var st redditState
	if !firstPage(raw) {
		if err := json.Unmarshal(raw, &st); err != nil || st.After == "" {
			return nil, badState()
		}
	}
	typ, want := "link", "t3"
	if kind == kindProfiles {
		typ, want = "user", "t2"
	}
	q := url.Values{"q": {query}, "type": {typ}, "limit": {fmt.Sprint(num)}, "raw_json": {"1"}}
	if st.After != "" {
		q.Set("after", st.After)
	}
	var resp redditListing
	if err := redditGet(ctx, u, "/search", q, &resp, ""); err != nil {
		return nil, err
	}
	data := resp.Data.V
	if data == nil {
		return nil, &providers.Error{Code: providers.CodeProviderError, Message: "Reddit answered without a listing", Retryable: ptr(true)}
	}
	page := &providers.Page{Records: []providers.Record{}}
	after := string(data.After)
	var last string // fullname of the last record shown
	for _, child := range data.Children {
		if string(child.Kind) != want || len(child.Data) == 0 {
			continue
		}
		var thing struct {
			ID   optStr `json:"id"`
			Name optStr `json:"name"`
		}
		_ = json.Unmarshal(child.Data, &thing)
		if len(page.Records) == num {
			// Reddit answered more than limit asked for: continue right after the last record
			// shown rather than after the page Reddit meant, so nothing is skipped.
			if last != "" {
				after = last
			}
			break
		}
		if want == "t3" {
			var p redditPost
			if json.Unmarshal(child.Data, &p) != nil {
				continue
			}
			page.Records = append(page.Records, redditPostRecord(p))
			last = redditFullname("t3", p.ID, thing.Name)
			continue
		}
		var usr redditUser
		if json.Unmarshal(child.Data, &usr) != nil || usr.Name == "" {
			continue
		}
		page.Records = append(page.Records, redditUserRecord(usr))
		// Accounts are paged by their fullname (t2_<id>); a suspended account shows no id.
		last = redditFullname("t2", usr.ID, "")
	}
	if after != "" {
		page.HasMore = true
		page.Next = mustJSON(redditState{After: after})
	}
	return page, nil
}

// redditFullname is a thing's fullname (kind_id36): Reddit's name field, or built from the id.
func redditFullname(kind string, id, name optStr) string {
	if strings.HasPrefix(string(name), kind+"_") {
		return string(name)
	}
	if redditIDPattern.MatchString(string(id)) {
		return kind + "_" + string(id)
	}
	return ""
}

// redditAuthor is the author name, unless Reddit shows a deleted or removed author.
func redditAuthor(s optStr) string {
	if s == "[deleted]" || s == "[removed]" {
		return ""
	}
	return string(s)
}

// redditText is a post or comment body, unless Reddit shows it deleted or removed.
func redditText(s optStr) string {
	if s == "[deleted]" || s == "[removed]" {
		return ""
	}
	return string(s)
}

// redditPostURL is the public address of a post: its permalink on the site.
func redditPostURL(p redditPost) string {
	if strings.HasPrefix(string(p.Permalink), "/") {
		return redditSite + string(p.Permalink)
	}
	if redditIDPattern.MatchString(string(p.ID)) {
		return redditSite + "/comments/" + string(p.ID) + "/"
	}
	return ""
}

// redditLinkURL is the page a link post points to (empty for text posts and Reddit-internal links).
func redditLinkURL(p redditPost) string {
	link := string(p.URLOverriddenByDest)
	if link == "" && p.IsSelf.OK && !p.IsSelf.V {
		link = string(p.URL)
	}
	if strings.HasPrefix(link, "/") {
		link = redditSite + link
	}
	if link == "" || link == redditPostURL(p) || !strings.HasPrefix(link, "http") {
		return ""
	}
	return link
}

// redditPostRecord maps a submission to a post record.
func redditPostRecord(p redditPost) providers.Record {
	fields := map[string]any{"platform": platformB, "kind": recordPost}
	setStr(fields, "author", redditAuthor(p.Author))
	setStr(fields, "created_at", unixTime(p.CreatedUTC))
	setStr(fields, "subreddit", string(p.Subreddit))
	setInt(fields, "score", p.Score)
	setInt(fields, "comments", p.NumComments)
	setInt(fields, "subscribers", p.SubredditSubscribers)
	setStr(fields, "link_url", redditLinkURL(p))
	title := oneLine(string(p.Title))
	if title == "" {
		title = "Reddit post " + string(p.ID)
	}
	rec := providers.Record{Title: title, URL: redditPostURL(p), Snippet: clip(oneLine(redditText(p.Selftext)), 300), Fields: fields}
	return withRef(rec, recordRef{Platform: platformB, Kind: recordPost, ID: string(p.ID)})
}

// redditUserURL is the public address of an account's profile.
func redditUserURL(name string) string {
	if !redditNamePattern.MatchString(name) {
		return ""
	}
	return redditSite + "/user/" + name + "/"
}

// redditUserRecord maps an account to a profile record.
func redditUserRecord(usr redditUser) providers.Record {
	name := string(usr.Name)
	fields := map[string]any{"platform": platformB, "kind": recordProfile}
	setStr(fields, "author", name)
	setStr(fields, "created_at", unixTime(usr.CreatedUTC))
	setInt(fields, "karma", usr.karma())
	setBool(fields, "verified", usr.Verified)
	var snippet string
	if sub := usr.Subreddit.V; sub != nil {
		if t := oneLine(string(sub.Title)); t != "" && !strings.EqualFold(t, name) {
			fields["author_name"] = t
		}
		setInt(fields, "followers", sub.Subscribers)
		snippet = clip(oneLine(string(sub.PublicDescription)), 300)
	}
	if usr.IsSuspended.V && snippet == "" {
		snippet = "This account is suspended."
	}
	rec := providers.Record{Title: "u/" + name, URL: redditUserURL(name), Snippet: snippet, Fields: fields}
	return withRef(rec, recordRef{Platform: platformB, Kind: recordProfile, Name: name})
}

// redditPostDetail is the details action of a platform_b post: GET /comments/{id} answers
// an array of two listings, the post (t3) and its comment tree (t1, plus "more" stubs).
func redditPostDetail(ctx context.Context, u *providers.Upstream, id string) (*providers.Detail, error) {
	q := url.Values{"raw_json": {"1"}, "limit": {fmt.Sprint(redditTopComments)}, "depth": {"1"}, "sort": {"top"}}
	var resp []json.RawMessage
	if err := redditGet(ctx, u, "/comments/"+id, q, &resp, "post"); err != nil {
		return nil, err
	}
	var post *redditPost
	var comments []redditComment
	for i, raw := range resp {
		var l redditListing
		if json.Unmarshal(raw, &l) != nil || l.Data.V == nil {
			continue
		}
		for _, child := range l.Data.V.Children {
			switch {
			case i == 0 && child.Kind == "t3" && post == nil:
				var p redditPost
				if json.Unmarshal(child.Data, &p) == nil {
					post = &p
				}
			case i == 1 && child.Kind == "t1":
				var c redditComment
				if json.Unmarshal(child.Data, &c) == nil {
					comments = append(comments, c)
				}
			}
		}
	}
	if post == nil {
		return nil, &providers.Error{Code: providers.CodeNotFound, Message: "Reddit has no such post"}
	}
	body := map[string]any{"platform": platformB, "kind": recordPost, "id": id}
	setStr(body, "title", oneLine(string(post.Title)))
	setStr(body, "author", redditAuthor(post.Author))
	setStr(body, "subreddit", string(post.Subreddit))
	setStr(body, "created_at", unixTime(post.CreatedUTC))
	setStr(body, "text", redditText(post.Selftext))
	setInt(body, "score", post.Score)
	if post.UpvoteRatio.OK {
		body["upvote_ratio"] = post.UpvoteRatio.V
	}
	setInt(body, "comments", post.NumComments)
	setInt(body, "crossposts", post.NumCrossposts)
	setInt(body, "subscribers", post.SubredditSubscribers)
	setStr(body, "link_url", redditLinkURL(*post))
	setStr(body, "domain", string(post.Domain))
	setStr(body, "flair", string(post.LinkFlairText))
	setBool(body, "over_18", post.Over18)
	setBool(body, "spoiler", post.Spoiler)
	setBool(body, "locked", post.Locked)
	setBool(body, "video", post.IsVideo)
	setStr(body, "edited_at", unixTime(post.Edited))
	setStr(body, "removed_by", string(post.RemovedByCategory))
	postURL := redditPostURL(*post)
	setStr(body, "url", postURL)
	top := make([]map[string]any, 0, len(comments))
	for _, c := range comments {
		text := redditText(c.Body)
		if text == "" || len(top) == redditTopComments {
			continue
		}
		m := map[string]any{"text": clip(text, 1000)}
		setStr(m, "author", redditAuthor(c.Author))
		setInt(m, "score", c.Score)
		setStr(m, "created_at", unixTime(c.CreatedUTC))
		setBool(m, "stickied", c.Stickied)
		setStr(m, "distinguished", string(c.Distinguished))
		if strings.HasPrefix(string(c.Permalink), "/") {
			m["url"] = redditSite + string(c.Permalink)
		}
		top = append(top, m)
	}
	body["top_comments"] = top
	var links []providers.Link
	links = appendLink(links, "Thread on Reddit", postURL)
	links = appendLink(links, "Linked page", redditLinkURL(*post))
	if redditSubNameRegex.MatchString(string(post.Subreddit)) {
		links = appendLink(links, "Community", redditSite+"/r/"+string(post.Subreddit)+"/")
	}
	return &providers.Detail{Body: body, Links: orNoLinks(links), Credits: providers.Credits(0)}, nil
}

// redditAbout is the answer of /user/{name}/about: {kind: "t2", data: {...}}.
type redditAbout struct {
	Kind optStr          `json:"kind"`
	Data obj[redditUser] `json:"data"`
}

// redditUserDetail is the details action of a platform_b profile: the account's about page.
func redditUserDetail(ctx context.Context, u *providers.Upstream, name string) (*providers.Detail, error) {
	var resp redditAbout
	if err := redditGet(ctx, u, "/user/"+name+"/about", url.Values{"raw_json": {"1"}}, &resp, "account"); err != nil {
		return nil, err
	}
	usr := resp.Data.V
	if usr == nil || usr.Name == "" {
		return nil, &providers.Error{Code: providers.CodeNotFound, Message: "Reddit has no such account"}
	}
	body := map[string]any{"platform": platformB, "kind": recordProfile, "name": string(usr.Name)}
	setStr(body, "id", string(usr.ID))
	setStr(body, "created_at", unixTime(usr.CreatedUTC))
	karma := map[string]any{}
	setInt(karma, "total", usr.karma())
	setInt(karma, "posts", usr.LinkKarma)
	setInt(karma, "comments", usr.CommentKarma)
	setInt(karma, "awardee", usr.AwardeeKarma)
	setInt(karma, "awarder", usr.AwarderKarma)
	if len(karma) > 0 {
		body["karma"] = karma
	}
	setBool(body, "verified", usr.Verified)
	setBool(body, "has_verified_email", usr.HasVerifiedEmail)
	setBool(body, "is_employee", usr.IsEmployee)
	setBool(body, "is_moderator", usr.IsMod)
	setBool(body, "premium", usr.IsGold)
	setBool(body, "suspended", usr.IsSuspended)
	setBool(body, "accepts_followers", usr.AcceptFollowers)
	icon := string(usr.SnoovatarImg)
	if icon == "" {
		icon = string(usr.IconImg)
	}
	setStr(body, "icon_url", icon)
	if sub := usr.Subreddit.V; sub != nil {
		setStr(body, "title", oneLine(string(sub.Title)))
		setStr(body, "description", string(sub.PublicDescription))
		setInt(body, "followers", sub.Subscribers)
		setBool(body, "over_18", sub.Over18)
	}
	profile := redditUserURL(string(usr.Name))
	setStr(body, "url", profile)
	links := appendLink(nil, "Profile on Reddit", profile)
	return &providers.Detail{Body: body, Links: orNoLinks(links), Credits: providers.Credits(0)}, nil
}

// redditGet calls Reddit and decodes the JSON answer. Reddit answers some datacenter networks
// with an HTML "blocked" page (HTTP 403, sometimes 200) instead of JSON; that is a
// provider_error saying so. lookup names what a details lookup reads ("" for a search).
func redditGet(ctx context.Context, u *providers.Upstream, path string, q url.Values, out any, lookup string) error {
	resp, err := redditCall(ctx, u, path, q)
	if err != nil {
		return redditError(err, lookup)
	}
	if !looksLikeJSON(resp.Body) {
		return redditBlocked(resp.Status, nil)
	}
	return u.Decode(resp, out)
}

// redditBlocked is the error of Reddit refusing this gateway's network.
func redditBlocked(status int, cause error) error {
	return &providers.Error{Code: providers.CodeProviderError,
		Message: fmt.Sprintf("Reddit refused this gateway's network (HTTP %d with its blocked page instead of JSON): "+
			"Reddit blocks requests from some datacenter networks", status),
		Hint:      "platform_b works from networks Reddit does not block; platform_a is unaffected",
		Retryable: ptr(false), UpstreamStatus: status, Cause: cause}
}

// redditErrorBody is Reddit's JSON error answer: {"message": "Forbidden", "error": 403, "reason": "private"}.
type redditErrorBody struct {
	Message optStr `json:"message"`
	Error   optInt `json:"error"`
	Reason  optStr `json:"reason"`
}

func redditError(err error, lookup string) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	var body redditErrorBody
	isJSON := looksLikeJSON(e.Body) && json.Unmarshal(e.Body, &body) == nil
	text := string(body.Message)
	if text == "" {
		text = http.StatusText(e.UpstreamStatus)
	}
	switch status := e.UpstreamStatus; {
	case status == http.StatusForbidden && lookup != "" && isJSON && body.Reason != "":
		return &providers.Error{Code: providers.CodeNotFound, Message: fmt.Sprintf("Reddit does not show this %s (%s)", lookup, body.Reason),
			UpstreamStatus: status, Cause: e}
	case status == http.StatusForbidden:
		return redditBlocked(status, e)
	case status == http.StatusNotFound && lookup != "":
		return &providers.Error{Code: providers.CodeNotFound, Message: "Reddit has no such " + lookup, UpstreamStatus: status, Cause: e}
	case status == http.StatusTooManyRequests:
		wait := e.RetryAfter
		if wait <= 0 {
			wait = defaultRetry
		}
		return &providers.Error{Code: providers.CodeRateLimited, Message: "Reddit is rate limiting this gateway; retry shortly",
			RetryAfter: wait, UpstreamStatus: status, Body: e.Body, Cause: e}
	case status == http.StatusBadRequest && lookup == "":
		return providers.InvalidField("/query", "Reddit refused the query: "+text)
	case status >= 500:
		return providerError(e, true, fmt.Sprintf("Reddit failed (HTTP %d)", status))
	default:
		return providerError(e, false, fmt.Sprintf("Reddit refused the request (HTTP %d: %s)", status, text))
	}
}
