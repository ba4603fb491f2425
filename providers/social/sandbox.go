package social

import (
	"net/http"
	"strconv"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches carry the asked query's words (issue 18) and end: a page asked for with
// a cursor is the last one (Reddit's after and X's next_token are left out of it).
func init() {
	providers.RegisterGenerators(redditID, providers.GeneratedRoute{Path: "/search",
		Generate: lastWithCursor("after", withLimit(providers.TopicSearch("q", "rust async runtime", "rust")))})
	providers.RegisterGenerators(xID, providers.GeneratedRoute{Path: "/2/tweets/search/recent",
		Generate: lastWithCursor("next_token", providers.TopicSearch("query", "Artemis II", "Artemis"))})
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
