package websearch

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/pageread"
)

// ReadPage fetches a web page as Markdown for the record action read: the guarded reader web.read
// also uses (providers/upstream/pageread, SSRF checks included), with its default size bound. Tests
// replace it.
var ReadPage = func(ctx context.Context, call *providers.Call, url string) (*providers.Detail, error) {
	return pageread.Read(ctx, call, url, 0)
}

// readCredits is the charge of a fresh read: $0.005 per page (1 credit = $0.001); the gateway
// caches the detail and serves repeats for free.
const readCredits = 5

// pageRef is a record's Ref: the page the read action fetches.
type pageRef struct {
	URL string `json:"url"`
}

// readAction is the record action read, shared by web.search and news.search.
func readAction(what string) providers.Action {
	return providers.Action{
		Name: "read",
		Description: "Fetches the " + what + "'s url and answers the page as Markdown (the same reader as web.read). " +
			"$0.005 per page (5 credits) on the first read; repeats are cached and free. Refused for records " +
			"without a url.",
		Kind:    providers.ActionLookup,
		Credits: readCredits,
		Run:     runRead,
	}
}

// refOf makes the Ref of a record whose page can be read; nil when the link is not a web URL.
func refOf(link string) json.RawMessage {
	if !isWebURL(link) {
		return nil
	}
	b, _ := json.Marshal(pageRef{URL: link})
	return b
}

func runRead(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref pageRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !isWebURL(ref.URL) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no url, so it cannot be read").
			WithHint("read works on records that carry a url; answer boxes and knowledge panels without a link have none")
	}
	return ReadPage(ctx, call, ref.URL)
}

// isWebURL tells whether s is an absolute http(s) URL with a host.
func isWebURL(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
