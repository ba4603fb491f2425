package mealdb

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/capgate/capgate/providers"
)

// mealDetails answers the details action. A name search (search.php) already returned the full
// meal, which the record carries in Stored["details"]: it is answered from there without a call.
// Filter results (and any record whose stored detail is gone) are looked up with
// lookup.php?i={id}, at no charge; the gateway caches the answer for repeats.
func mealDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	if d := rec.Stored["details"]; d != nil && d.Body != nil {
		links := d.Links
		if links == nil {
			links = []providers.Link{}
		}
		return &providers.Detail{Body: d.Body, Links: links}, nil
	}
	var ref mealRef
	if len(rec.Ref) > 0 {
		_ = json.Unmarshal(rec.Ref, &ref)
	}
	if !mealIDPattern.MatchString(ref.ID) {
		return nil, providers.Errorf(providers.CodeNotFound, "this record has no TheMealDB meal id to look up; run the search again")
	}
	u := call.Upstream(ProviderID)
	meals, err := fetchMeals(ctx, u, "/lookup.php", url.Values{"i": {ref.ID}})
	if err != nil {
		return nil, err
	}
	for _, m := range meals {
		if m.id() == ref.ID && m.title() != "" {
			return mealDetail(m), nil
		}
	}
	return nil, providers.Errorf(providers.CodeNotFound, "TheMealDB no longer lists meal %s", ref.ID)
}
