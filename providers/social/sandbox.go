package social

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches answer any query (issue 36): a synthetic set of posts or profiles about
// the query's words (its operators applied: X's from: names the author), newest first, paged by
// the platform's cursor and ending. The recorded queries keep their recorded answers, which end:
// a page asked for with a cursor is the last one (Reddit's after and X's next_token are left out
// of it).
func init() {
	providers.RegisterGenerators(redditID, providers.GeneratedRoute{Path: "/search",
		Generate: recordedOr([]string{"rust async runtime", "rust", "rustacean"}, "q", generateReddit,
			lastWithCursor("after", withLimit(providers.TopicSearch("q", "rust async runtime", "rust"))))})
	providers.RegisterGenerators(xID, providers.GeneratedRoute{Path: "/2/tweets/search/recent",
		Generate: recordedOr([]string{"artemis ii", "artemis", "artemis from:nasa -is:retweet"}, "query", generateX,
			lastWithCursor("next_token", providers.TopicSearch("query", "Artemis II", "Artemis")))})
	providers.RegisterGenerators(xID, providers.GeneratedRoute{Path: "/2/users/by", Generate: generateXUsers})
}

// recordedOr answers the recorded queries with the recorded generator and any other with gen.
func recordedOr(recorded []string, param string, gen, rec providers.Generator) providers.Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get(param)))
		if status != http.StatusOK || q == "" || providers.IsSandboxMiss(q) {
			return rec(r, fixture, status)
		}
		for _, s := range recorded {
			if q == s {
				return rec(r, fixture, status)
			}
		}
		return gen(r, fixture, status)
	}
}

// socialTotal is how many posts or profiles a sandbox search finds.
const socialTotal = 40

var forumTitles = []string{"What is your experience with %s?", "%s: where do I start?", "I finally tried %s — here is what I learned",
	"Is %s worth it in 2026?", "Weekly %s discussion thread", "Help: a question about %s", "%s tips that nobody told me",
	"My %s setup, after a year", "Unpopular opinion about %s", "Resources for learning %s"}

// cursorIndex reads the record index a sandbox cursor names ("t3_<prefix><n>" or "sbx<n>").
func cursorIndex(cursor, prefix string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(cursor, prefix))
	if err != nil || n < 0 {
		return 0
	}
	return n + 1
}

func idPrefix(seed string) string {
	return strconv.FormatUint(providers.Rand("idprefix", seed).Uint64()%(36*36*36), 36)
}

// handle is a made-up user name about a seed.
func handle(seed string, i int) string {
	p := strings.Fields(strings.ToLower(providers.SynthPerson(seed, i)))
	return p[0] + "_" + p[len(p)-1][:min(3, len(p[len(p)-1]))] + strconv.Itoa(i%97)
}

// generateReddit answers GET /search (type link or user) with a synthetic listing about the query.
func generateReddit(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("q"))
	topic := providers.TopicWords(query)
	seed := strings.ToLower(query + "|" + q.Get("type"))
	doc := providers.JSONObject(fixture)
	data, _ := doc["data"].(map[string]any)
	tmpls := providers.Templates(data["children"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit < 1 || limit > 100 {
		limit = 25
	}
	prefix := idPrefix(seed)
	from := 0
	if a := q.Get("after"); a != "" {
		from = cursorIndex(strings.TrimPrefix(strings.TrimPrefix(a, "t3_"), "t2_"), prefix)
	}
	now := providers.SandboxToday()
	sub := strings.ToLower(strings.Join(strings.Fields(providers.Slug(topic)), ""))
	if sub == "" {
		sub = "sandbox"
	}
	var children []any
	for i := from; i < min(from+limit, socialTotal); i++ {
		child := providers.FromTemplate(tmpls, i)
		d, _ := child["data"].(map[string]any)
		if d == nil {
			continue
		}
		rr := providers.Rand("reddit", seed, strconv.Itoa(i))
		id := prefix + strconv.Itoa(i)
		created := float64(providers.SynthTime(seed, i, socialTotal, now, 60*24*time.Hour).Unix())
		if q.Get("type") == "user" {
			name := strings.ReplaceAll(providers.Slug(topic), "-", "_") + "_" + handle(seed, i)
			d["name"], d["id"] = name, id
			d["created"], d["created_utc"] = created-float64(rr.IntN(3000))*86400, created-float64(rr.IntN(3000))*86400
			d["link_karma"], d["comment_karma"] = rr.IntN(20000), rr.IntN(60000)
			d["total_karma"] = d["link_karma"].(int) + d["comment_karma"].(int)
			d["icon_img"] = "https://www.redditstatic.com/avatars/defaults/v2/avatar_default_" + strconv.Itoa(i%8) + ".png"
			delete(d, "snoovatar_img")
			if s, ok := d["subreddit"].(map[string]any); ok {
				s["display_name"] = "u_" + name
				s["display_name_prefixed"] = "u/" + name
				s["url"] = "/user/" + name + "/"
				s["title"] = providers.TitleCase(topic) + " fan"
				s["public_description"] = "I post about " + topic + "."
				s["subscribers"] = rr.IntN(5000)
			}
			child["data"] = d
			children = append(children, child)
			continue
		}
		title := fmt.Sprintf(forumTitles[i%len(forumTitles)], topic)
		title = providers.UpperFirst(title)
		slug := providers.Slug(title)
		author := handle(seed, i)
		permalink := "/r/" + sub + "/comments/" + id + "/" + slug + "/"
		d["id"], d["name"], d["title"] = id, "t3_"+id, title
		d["subreddit"], d["subreddit_name_prefixed"], d["domain"] = sub, "r/"+sub, "self."+sub
		d["selftext"] = providers.TopicSnippet(topic, i)
		d["selftext_html"] = "<!-- SC_OFF --><div class=\"md\"><p>" + providers.TopicSnippet(topic, i) + "</p></div><!-- SC_ON -->"
		d["author"], d["author_fullname"] = author, "t2_"+prefix+strconv.Itoa(i)
		score := rr.IntN(2000)
		d["score"], d["ups"], d["num_comments"] = score, score, rr.IntN(300)
		d["created"], d["created_utc"] = created, created
		d["permalink"] = permalink
		d["url"] = "https://www.reddit.com" + permalink
		d["is_self"], d["thumbnail"] = true, "self"
		d["link_flair_text"] = nil
		child["data"] = d
		children = append(children, child)
	}
	data["children"] = children
	data["dist"] = len(children)
	data["after"] = nil
	if from+limit < socialTotal && len(children) > 0 {
		last := children[len(children)-1].(map[string]any)["data"].(map[string]any)
		if q.Get("type") == "user" {
			data["after"] = "t2_" + last["id"].(string)
		} else {
			data["after"] = last["name"]
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

var postForms = []string{"Thinking about %s today.", "Anyone else following %s? Thread below.", "New write-up on %s is out.",
	"Three things I learned about %s this week.", "%s is everywhere on my timeline right now.", "Hot take on %s: it is underrated.",
	"Reading up on %s before the weekend.", "Quick question about %s — what would you recommend?"}

// generateX answers X's recent search with synthetic posts about the query (from: names the
// author, lang: the language), newest first within the past week, paged by next_token.
func generateX(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("query"))
	topic := providers.TopicWords(query)
	seed := strings.ToLower(query)
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["data"])
	var userTmpls []map[string]any
	if inc, ok := doc["includes"].(map[string]any); ok {
		userTmpls = providers.Templates(inc["users"])
	}
	if len(tmpls) == 0 || len(userTmpls) == 0 {
		return fixture, status
	}
	size, _ := strconv.Atoi(q.Get("max_results"))
	if size < 10 || size > 100 {
		size = 10
	}
	from := 0
	if t := q.Get("next_token"); t != "" {
		from = cursorIndex(t, "sbx")
	}
	from2 := providers.QueryOperator(query, "from")
	lang := providers.QueryOperator(query, "lang")
	if lang == "" {
		lang = "en"
	}
	now := time.Now().UTC().Truncate(time.Hour)
	seen := map[string]bool{} // the author ids already included
	var users []map[string]any
	var out []map[string]any
	for i := from; i < min(from+size, socialTotal); i++ {
		rr := providers.Rand("x", seed, strconv.Itoa(i))
		k := i % 6
		username := handle(seed, k)
		if from2 != "" {
			username = from2
		}
		uid := strconv.FormatUint(1e9+providers.Rand("xuser", strings.ToLower(username)).Uint64()%1e15, 10)
		if !seen[uid] {
			u := providers.FromTemplate(userTmpls, k)
			u["id"], u["username"] = uid, username
			u["name"] = providers.TitleCase(strings.ReplaceAll(username, "_", " "))
			u["verified"] = false
			if pm, ok := u["public_metrics"].(map[string]any); ok {
				pm["followers_count"] = providers.Rand("followers", username).IntN(100000)
			}
			delete(u, "location")
			seen[uid] = true
			users = append(users, u)
		}
		t := providers.FromTemplate(tmpls, i)
		id := strconv.FormatUint(2e18+providers.Rand("tweet", seed, strconv.Itoa(i)).Uint64()%1e17, 10)
		text := fmt.Sprintf(postForms[i%len(postForms)], topic)
		t["id"], t["author_id"], t["text"], t["lang"] = id, uid, providers.UpperFirst(text), lang
		t["edit_history_tweet_ids"] = []any{id}
		t["created_at"] = providers.SynthTime(seed, i, socialTotal, now, 6*24*time.Hour).Format("2006-01-02T15:04:05.000Z")
		if pm, ok := t["public_metrics"].(map[string]any); ok {
			likes := rr.IntN(5000)
			pm["like_count"], pm["retweet_count"], pm["reply_count"] = likes, likes/8, likes/30
			pm["quote_count"], pm["bookmark_count"], pm["impression_count"] = likes/90, likes/20, likes*40+rr.IntN(1000)
		}
		out = append(out, t)
	}
	meta := xSearchMeta{ResultCount: len(out)}
	if len(out) > 0 {
		meta.NewestID, meta.OldestID = out[0]["id"].(string), out[len(out)-1]["id"].(string)
		doc["data"] = out
		doc["includes"] = xSearchIncludes{Users: users}
	} else {
		delete(doc, "data")
		delete(doc, "includes")
	}
	if from+size < socialTotal {
		meta.NextToken = "sbx" + strconv.Itoa(min(from+size, socialTotal)-1)
	}
	doc["meta"] = meta
	return providers.JSONBytes(doc), http.StatusOK
}

// generateXUsers answers GET /2/users/by with the asked handles: the recorded accounts as
// recorded, any other as a synthetic account of that handle.
func generateXUsers(r *http.Request, fixture []byte, status int) ([]byte, int) {
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["data"])
	names := strings.Split(r.URL.Query().Get("usernames"), ",")
	if status != http.StatusOK || len(tmpls) == 0 || len(names) == 0 {
		return fixture, status
	}
	recorded := map[string]int{} // the index in tmpls of each recorded account, by lower-case handle
	for i, t := range tmpls {
		if u, ok := t["username"].(string); ok {
			recorded[strings.ToLower(u)] = i
		}
	}
	var res xUsersAnswer
	for i, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if j, ok := recorded[strings.ToLower(n)]; ok {
			res.Data = append(res.Data, tmpls[j])
			continue
		}
		if providers.IsSandboxMiss(n) {
			res.Errors = append(res.Errors, xNotFound{Value: n, Detail: "Could not find user with usernames: [" + n + "].",
				Title: "Not Found Error", ResourceType: "user", Parameter: "usernames", ResourceID: n,
				Type: "https://api.twitter.com/2/problems/resource-not-found"})
			continue
		}
		rr := providers.Rand("xuser", strings.ToLower(n))
		u := providers.FromTemplate(tmpls, i)
		u["id"] = strconv.FormatUint(1e9+rr.Uint64()%1e15, 10)
		u["username"], u["name"] = n, providers.TitleCase(strings.ReplaceAll(n, "_", " "))
		u["verified"] = false
		u["description"] = "The sandbox account @" + n + " (synthetic test-mode profile)."
		u["created_at"] = time.Date(2008+rr.IntN(16), time.Month(1+rr.IntN(12)), 1+rr.IntN(28), 12, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
		delete(u, "location")
		if pm, ok := u["public_metrics"].(map[string]any); ok {
			pm["followers_count"], pm["following_count"], pm["tweet_count"] = rr.IntN(200000), rr.IntN(2000), rr.IntN(30000)
		}
		res.Data = append(res.Data, u)
	}
	return providers.JSONBytes(res), http.StatusOK
}

// lastWithCursor removes the next cursor from an answer to a request that carries one.
func lastWithCursor(param string, gen providers.Generator) providers.Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		out, st := gen(r, fixture, status)
		if r.URL.Query().Get(param) == "" || st != http.StatusOK {
			return out, st
		}
		doc := providers.JSONObject(out)
		if data, ok := doc["data"].(map[string]any); ok {
			data["after"] = nil
		}
		if meta, ok := doc["meta"].(map[string]any); ok {
			delete(meta, "next_token")
		}
		return providers.JSONBytes(doc), st
	}
}

// withLimit keeps at most limit children of a Reddit listing, as Reddit does; a cut listing
// continues after its last child.
func withLimit(gen providers.Generator) providers.Generator {
	return func(r *http.Request, fixture []byte, status int) ([]byte, int) {
		out, st := gen(r, fixture, status)
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		doc := providers.JSONObject(out)
		data, _ := doc["data"].(map[string]any)
		children, _ := data["children"].([]any)
		if err != nil || st != http.StatusOK || limit < 1 || len(children) <= limit {
			return out, st
		}
		data["children"], data["dist"] = children[:limit], limit
		if last, ok := children[limit-1].(map[string]any); ok {
			if d, ok := last["data"].(map[string]any); ok {
				if name, ok := d["name"].(string); ok {
					data["after"] = name
				}
			}
		}
		return providers.JSONBytes(doc), st
	}
}

// --- the parts of X's answers the sandbox writes; the posts and users are recorded ones, edited

// xSearchMeta is a recent search answer's meta: the count, the newest and oldest post ids of the
// page (absent on an empty page) and the next page's token (absent on the last page).
type xSearchMeta struct {
	NewestID    string `json:"newest_id,omitempty"`
	OldestID    string `json:"oldest_id,omitempty"`
	ResultCount int    `json:"result_count"`
	NextToken   string `json:"next_token,omitempty"`
}

// xSearchIncludes is a recent search answer's includes: the authors of the page's posts.
type xSearchIncludes struct {
	Users []map[string]any `json:"users"`
}

// xUsersAnswer is the users/by answer: the accounts found and a problem for each handle that was
// not (each absent when empty).
type xUsersAnswer struct {
	Data   []map[string]any `json:"data,omitempty"`
	Errors []xNotFound      `json:"errors,omitempty"`
}

// xNotFound is X's problem for a handle that names no account.
type xNotFound struct {
	Value        string `json:"value"`
	Detail       string `json:"detail"`
	Title        string `json:"title"`
	ResourceType string `json:"resource_type"`
	Parameter    string `json:"parameter"`
	ResourceID   string `json:"resource_id"`
	Type         string `json:"type"`
}
