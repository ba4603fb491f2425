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

// redditTopComments is how many top-level comments the details of a Reddit post carry.
const redditTopComments = 10

// redditListing is Reddit's Listing thing: {kind: "Listing", data: {after, dist, children}}.
type redditListing struct {
	Kind lenient.Str                    `json:"kind"`
	Data lenient.Obj[redditListingData] `json:"data"`
}

type redditListingData struct {
	After    lenient.Str               `json:"after"`
	Dist     lenient.Int               `json:"dist"`
	Children lenient.List[redditThing] `json:"children"`
}

// redditThing is one child of a listing: {kind: t1|t2|t3|t5|more, data: {...}}.
type redditThing struct {
	Kind lenient.Str `json:"kind"`
	Data rawObject   `json:"data"`
}

// redditPost is a submission (t3), only the fields this adapter reads.
type redditPost struct {
	ID                   lenient.Str   `json:"id"`
	Title                lenient.Str   `json:"title"`
	Author               lenient.Str   `json:"author"`
	Subreddit            lenient.Str   `json:"subreddit"`
	Selftext             lenient.Str   `json:"selftext"`
	Score                lenient.Int   `json:"score"`
	UpvoteRatio          lenient.Float `json:"upvote_ratio"`
	NumComments          lenient.Int   `json:"num_comments"`
	SubredditSubscribers lenient.Int   `json:"subreddit_subscribers"`
	CreatedUTC           lenient.Float `json:"created_utc"`
	Permalink            lenient.Str   `json:"permalink"`
	URL                  lenient.Str   `json:"url"`
	URLOverriddenByDest  lenient.Str   `json:"url_overridden_by_dest"`
	IsSelf               lenient.Bool  `json:"is_self"`
	IsVideo              lenient.Bool  `json:"is_video"`
	Over18               lenient.Bool  `json:"over_18"`
	Spoiler              lenient.Bool  `json:"spoiler"`
	Locked               lenient.Bool  `json:"locked"`
	Stickied             lenient.Bool  `json:"stickied"`
	LinkFlairText        lenient.Str   `json:"link_flair_text"`
	Domain               lenient.Str   `json:"domain"`
	NumCrossposts        lenient.Int   `json:"num_crossposts"`
	Edited               lenient.Float `json:"edited"` // false, or the Unix time of the edit
	Distinguished        lenient.Str   `json:"distinguished"`
	RemovedByCategory    lenient.Str   `json:"removed_by_category"`
}

// redditUser is an account (t2), as search and about.json return it.
type redditUser struct {
	ID               lenient.Str                 `json:"id"`
	Name             lenient.Str                 `json:"name"`
	CreatedUTC       lenient.Float               `json:"created_utc"`
	LinkKarma        lenient.Int                 `json:"link_karma"`
	CommentKarma     lenient.Int                 `json:"comment_karma"`
	AwardeeKarma     lenient.Int                 `json:"awardee_karma"`
	AwarderKarma     lenient.Int                 `json:"awarder_karma"`
	TotalKarma       lenient.Int                 `json:"total_karma"`
	Verified         lenient.Bool                `json:"verified"`
	HasVerifiedEmail lenient.Bool                `json:"has_verified_email"`
	IsEmployee       lenient.Bool                `json:"is_employee"`
	IsMod            lenient.Bool                `json:"is_mod"`
	IsGold           lenient.Bool                `json:"is_gold"`
	IsSuspended      lenient.Bool                `json:"is_suspended"`
	AcceptFollowers  lenient.Bool                `json:"accept_followers"`
	IconImg          lenient.Str                 `json:"icon_img"`
	SnoovatarImg     lenient.Str                 `json:"snoovatar_img"`
	Subreddit        lenient.Obj[redditUserSubr] `json:"subreddit"`
}

// redditUserSubr is the profile subreddit (u_<name>) of an account: its title, bio and the
// number of followers (subscribers of the profile).
type redditUserSubr struct {
	Title             lenient.Str  `json:"title"`
	PublicDescription lenient.Str  `json:"public_description"`
	Subscribers       lenient.Int  `json:"subscribers"`
	Over18            lenient.Bool `json:"over_18"`
}

func (usr *redditUser) karma() lenient.Int {
	if usr.TotalKarma.OK {
		return usr.TotalKarma
	}
	if usr.LinkKarma.OK || usr.CommentKarma.OK {
		return lenient.Int{V: usr.LinkKarma.V + usr.CommentKarma.V, OK: true}
	}
	return lenient.Int{}
}

// redditComment is a comment (t1).
type redditComment struct {
	ID            lenient.Str   `json:"id"`
	Author        lenient.Str   `json:"author"`
	Body          lenient.Str   `json:"body"`
	Score         lenient.Int   `json:"score"`
	CreatedUTC    lenient.Float `json:"created_utc"`
	Permalink     lenient.Str   `json:"permalink"`
	Stickied      lenient.Bool  `json:"stickied"`
	Distinguished lenient.Str   `json:"distinguished"`
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
			ID   lenient.Str `json:"id"`
			Name lenient.Str `json:"name"`
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
			if lenient.Unmarshal(child.Data, &p) != nil {
				continue
			}
			page.Records = append(page.Records, redditPostRecord(p))
			last = redditFullname("t3", p.ID, thing.Name)
			continue
		}
		var usr redditUser
		if lenient.Unmarshal(child.Data, &usr) != nil || usr.Name == "" {
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
func redditFullname(kind string, id, name lenient.Str) string {
	if strings.HasPrefix(string(name), kind+"_") {
		return string(name)
	}
	if redditIDPattern.MatchString(string(id)) {
		return kind + "_" + string(id)
	}
	return ""
}

// redditAuthor is the author name, unless Reddit shows a deleted or removed author.
func redditAuthor(s lenient.Str) string {
	if s == "[deleted]" || s == "[removed]" {
		return ""
	}
	return string(s)
}

// redditText is a post or comment body, unless Reddit shows it deleted or removed.
func redditText(s lenient.Str) string {
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
	data := &Record{Platform: platformB, Kind: recordPost, Author: redditAuthor(p.Author), CreatedAt: unixTime(p.CreatedUTC),
		Subreddit: string(p.Subreddit), Score: intOf(p.Score), Comments: intOf(p.NumComments),
		Subscribers: intOf(p.SubredditSubscribers), LinkURL: redditLinkURL(p)}
	title := oneLine(string(p.Title))
	if title == "" {
		title = "Reddit post " + string(p.ID)
	}
	rec := providers.Record{Title: title, URL: redditPostURL(p), Snippet: providers.Clip(oneLine(redditText(p.Selftext)), 300), Data: data}
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
	data := &Record{Platform: platformB, Kind: recordProfile, Author: name, CreatedAt: unixTime(usr.CreatedUTC),
		Karma: intOf(usr.karma()), Verified: boolOf(usr.Verified)}
	var snippet string
	if sub := usr.Subreddit.V; sub != nil {
		if t := oneLine(string(sub.Title)); t != "" && !strings.EqualFold(t, name) {
			data.AuthorName = t
		}
		data.Followers = intOf(sub.Subscribers)
		snippet = providers.Clip(oneLine(string(sub.PublicDescription)), 300)
	}
	if usr.IsSuspended.V && snippet == "" {
		snippet = "This account is suspended."
	}
	rec := providers.Record{Title: "u/" + name, URL: redditUserURL(name), Snippet: snippet, Data: data}
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
		if lenient.Unmarshal(raw, &l) != nil || l.Data.V == nil {
			continue
		}
		for _, child := range l.Data.V.Children {
			switch {
			case i == 0 && child.Kind == "t3" && post == nil:
				var p redditPost
				if lenient.Unmarshal(child.Data, &p) == nil {
					post = &p
				}
			case i == 1 && child.Kind == "t1":
				var c redditComment
				if lenient.Unmarshal(child.Data, &c) == nil {
					comments = append(comments, c)
				}
			}
		}
	}
	if post == nil {
		return nil, &providers.Error{Code: providers.CodeNotFound, Message: "Reddit has no such post"}
	}
	postURL := redditPostURL(*post)
	body := &RedditPostDetail{Platform: platformB, Kind: recordPost, ID: id, Title: oneLine(string(post.Title)),
		Author: redditAuthor(post.Author), Subreddit: string(post.Subreddit), CreatedAt: unixTime(post.CreatedUTC),
		Text: redditText(post.Selftext), Score: intOf(post.Score), Comments: intOf(post.NumComments),
		Crossposts: intOf(post.NumCrossposts), Subscribers: intOf(post.SubredditSubscribers), LinkURL: redditLinkURL(*post),
		Domain: string(post.Domain), Flair: string(post.LinkFlairText), Over18: boolOf(post.Over18),
		Spoiler: boolOf(post.Spoiler), Locked: boolOf(post.Locked), Video: boolOf(post.IsVideo),
		EditedAt: unixTime(post.Edited), RemovedBy: string(post.RemovedByCategory), URL: postURL,
		TopComments: make([]RedditComment, 0, len(comments))}
	if post.UpvoteRatio.OK {
		body.UpvoteRatio = &post.UpvoteRatio.V
	}
	for _, c := range comments {
		text := redditText(c.Body)
		if text == "" || len(body.TopComments) == redditTopComments {
			continue
		}
		m := RedditComment{Text: providers.Clip(text, 1000), Author: redditAuthor(c.Author), Score: intOf(c.Score),
			CreatedAt: unixTime(c.CreatedUTC), Stickied: boolOf(c.Stickied), Distinguished: string(c.Distinguished)}
		if strings.HasPrefix(string(c.Permalink), "/") {
			m.URL = redditSite + string(c.Permalink)
		}
		body.TopComments = append(body.TopComments, m)
	}
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
	Kind lenient.Str             `json:"kind"`
	Data lenient.Obj[redditUser] `json:"data"`
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
	body := &RedditProfileDetail{Platform: platformB, Kind: recordProfile, Name: string(usr.Name), ID: string(usr.ID),
		CreatedAt: unixTime(usr.CreatedUTC), Verified: boolOf(usr.Verified), HasVerifiedEmail: boolOf(usr.HasVerifiedEmail),
		IsEmployee: boolOf(usr.IsEmployee), IsModerator: boolOf(usr.IsMod), Premium: boolOf(usr.IsGold),
		Suspended: boolOf(usr.IsSuspended), AcceptsFollowers: boolOf(usr.AcceptFollowers)}
	karma := RedditKarma{Total: intOf(usr.karma()), Posts: intOf(usr.LinkKarma), Comments: intOf(usr.CommentKarma),
		Awardee: intOf(usr.AwardeeKarma), Awarder: intOf(usr.AwarderKarma)}
	if karma != (RedditKarma{}) {
		body.Karma = &karma
	}
	body.IconURL = string(usr.SnoovatarImg)
	if body.IconURL == "" {
		body.IconURL = string(usr.IconImg)
	}
	if sub := usr.Subreddit.V; sub != nil {
		body.Title, body.Description = oneLine(string(sub.Title)), string(sub.PublicDescription)
		body.Followers, body.Over18 = intOf(sub.Subscribers), boolOf(sub.Over18)
	}
	profile := redditUserURL(string(usr.Name))
	body.URL = profile
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
	Message lenient.Str `json:"message"`
	Error   lenient.Int `json:"error"`
	Reason  lenient.Str `json:"reason"`
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
