package commerce

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

// SerpApi engines and bounds of shopping.search (see doc.go).
const (
	shoppingEngine  = "google_shopping"
	productEngine   = "google_immersive_product"
	shoppingSource  = "google_shopping"
	maxOffers       = 20 // merchant offers returned by details
	maxSpecs        = 50 // specification rows returned by details
	maxOfferLinks   = 10 // offer links of a details answer
	maxFilterGroups = 30 // filter groups copied to filters[]
)

// searchKeys are the request fields whose change clears a stored filter_id (spec 4.28).
var searchKeys = []string{"query", "country", "language", "location"}

// sortBy maps the spec's price sorts to SerpApi's google_shopping sort_by, whose only values are
// 1 (price low to high) and 2 (price high to low). The spec's rating_high_to_low has no sort_by
// value: it goes through the answer's own "Sort by" filter token when Google offers one (see
// ratingSort).
var sortBy = map[string]string{
	"price_low_to_high": "1",
	"price_high_to_low": "2",
}

// sortRating is the spec's sort value without a sort_by counterpart.
const sortRating = "rating_high_to_low"

// ShoppingSearch is shopping.search (spec 4.28).
var ShoppingSearch = &providers.Capability{
	ID:      "shopping.search",
	Fresh:   time.Hour,
	Title:   "Shopping search",
	Summary: "Search products and prices across online stores (Google Shopping), with price range, condition, sort and refining filters.",
	Description: "Searches Google Shopping (through SerpApi) for product offers. `query` is what to buy; `country` " +
		"(two letters) and `language` localize the results and prices, `location` (a place name such as " +
		"\"Austin, Texas, United States\") sets where the search originates. `price_min` / `price_max` bound " +
		"the item price (excluding delivery), `condition` keeps new or used offers, `sort` orders by price or " +
		"rating (rating only where Google Shopping offers a rating order for the search, which costs a second " +
		"upstream search; otherwise it is refused at /sort naming the price orders). `num` sets the page size (1 to 25, default 10). Each record is one offer: title, url (the " +
		"product page), snippet when supplied, and the keys price (number), price_display (price as shown, " +
		"with currency), seller, delivery, condition, rating (number out of 5) and reviews (integer) when " +
		"Google Shopping has them, and source (always google_shopping). The execute envelope carries " +
		"filters[] ({id, label, group}: the refinements Google Shopping offers for this search, e.g. brands, " +
		"sizes, stores). Follow-ups: more (next provider page); update (change any field; paging restarts); " +
		"on update only, `filter_id` picks one filter id from filters[] of this search (null clears it); it " +
		"cannot be combined with sort or condition, is refused when sent together with a change of query, " +
		"country, language or location, and such a change clears a stored filter_id. Record action details " +
		"($0.004 per fresh request, cached on repeat): the product's description, specifications and " +
		"merchant offers (price, shipping, total, rating, link) from Google's product view; records without " +
		"a product token have no details.",
	Topic:   "Commerce and markets",
	Request: shoppingSchema,
	Rules:   shoppingRules,
	Merge:   shoppingMerge,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The product's description, specifications and merchant offers (merchant, price, shipping, total, " +
			"rating, reviews, link) from Google's product view; $0.004 per fresh request, cached on repeat.",
		Kind:    providers.ActionLookup,
		Credits: 4,
		Run:     productDetails,
	}},
	Cost: providers.Cost{
		Typical: 4,
		Basis:   "$0.004 per SerpApi Google Shopping page and per fresh product details lookup; cached details are free",
	},
	Deadline:  40 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "Coffee grinders in the US, five per page", Body: providers.ExampleBody(`{"query": "coffee grinder", "country": "us", "language": "en", "num": 5}`)},
		{Title: "Used cameras under 500, cheapest first", Body: providers.ExampleBody(`{"query": "mirrorless camera", "condition": "used", "price_max": 500, "sort": "price_low_to_high"}`)},
		{Title: "Running shoes between 50 and 120 near a city", Body: providers.ExampleBody(`{"query": "running shoes", "price_min": 50, "price_max": 120, "location": "Austin, Texas, United States"}`)},
	},
	Execute: searchShopping,
	Record:  OfferRecord{},
}

const shoppingSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "shopping.search request",
  "description": "Search Google Shopping offers. Only query is required. filter_id is accepted on update only.",
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 500,
      "pattern": "\\S",
      "description": "What to shop for, e.g. \"espresso machine\" or \"iphone 15 case\". Must not be blank."
    },
    "country": {
      "type": "string",
      "pattern": "^[a-zA-Z]{2}$",
      "description": "Two-letter country code (ISO 3166-1 alpha-2, e.g. us, gb, de) of the market to search; prices are in this market's currency."
    },
    "language": {
      "type": "string",
      "minLength": 2,
      "maxLength": 12,
      "description": "Language code of the results, e.g. en, es, fr, pt-BR."
    },
    "location": {
      "type": "string",
      "minLength": 1,
      "maxLength": 200,
      "pattern": "\\S",
      "description": "Place the search originates from, best at city level, e.g. \"Austin, Texas, United States\"."
    },
    "filter_id": {
      "type": ["string", "null"],
      "minLength": 1,
      "description": "Update only: the id of one entry of filters[] of this search, to refine the results by it; null clears the filter. Cannot be combined with sort or condition; not accepted together with a change of query, country, language or location (such a change clears it)."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 25,
      "default": 10,
      "description": "Results per page, 1 to 25."
    },
    "price_min": {
      "type": "number",
      "minimum": 0,
      "maximum": 100000000,
      "description": "Lowest item price (excluding delivery), in the market's currency. Must not exceed price_max."
    },
    "price_max": {
      "type": "number",
      "minimum": 0,
      "maximum": 100000000,
      "description": "Highest item price (excluding delivery), in the market's currency."
    },
    "condition": {
      "type": "string",
      "enum": ["new", "used"],
      "description": "Only new or only used (second-hand, refurbished) offers."
    },
    "sort": {
      "type": "string",
      "enum": ["price_low_to_high", "price_high_to_low", "rating_high_to_low"],
      "description": "Order of the results; relevance when omitted. rating_high_to_low works only where Google Shopping offers a rating order for the search (else 400 at /sort)."
    }
  }
}`

// shoppingRules checks the rules beyond the schema of spec 4.28.
func shoppingRules(req providers.Request, up *providers.Update) []providers.Violation {
	var vs []providers.Violation
	if lo, ok := req.Float("price_min"); ok {
		if hi, ok := req.Float("price_max"); ok && lo > hi {
			vs = append(vs, providers.Violation{Path: "/price_min", Message: "price_min must not exceed price_max"})
		}
	}
	if up == nil {
		if req.Has("filter_id") {
			vs = append(vs, providers.Violation{Path: "/filter_id",
				Message: "filter_id is accepted only on update, with an id from filters[] of this search"})
		}
		return vs
	}
	sent, _ := up.Params.String("filter_id")
	if sent != "" {
		for _, k := range searchKeys {
			if changed(up.Previous, up.Params, k) {
				vs = append(vs, providers.Violation{Path: "/filter_id",
					Message: "filter_id cannot be sent together with a change of " + k + "; change the search first, then pick a filter from its filters[]"})
				return vs
			}
		}
		if !hasFilter(up.Filters, sent) {
			vs = append(vs, providers.Violation{Path: "/filter_id", Message: "filter_id is not one of the filters[] of this search"})
		}
	}
	if id, _ := req.String("filter_id"); id != "" {
		for _, k := range []string{"sort", "condition"} {
			if !req.Has(k) {
				continue
			}
			path := "/" + k
			if sent != "" {
				path = "/filter_id"
			}
			vs = append(vs, providers.Violation{Path: path, Message: "filter_id cannot be combined with " + k})
		}
	}
	return vs
}

// changed tells whether update params change a field of the stored query (null removes it).
func changed(prev, params providers.Request, key string) bool {
	v, sent := params[key]
	if !sent {
		return false
	}
	old, had := prev[key]
	if v == nil {
		return had
	}
	return !had || !reflect.DeepEqual(old, v)
}

func hasFilter(fs []providers.Filter, id string) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}

// shoppingMerge is the shallow merge (null removes a key) that also clears a stored filter_id when
// the search itself changes and the params do not pick a new one (the rules refuse that case).
func shoppingMerge(prev, params providers.Request) providers.Request {
	out := prev.Clone()
	for k, v := range params {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if _, picked := params["filter_id"]; !picked {
		for _, k := range searchKeys {
			if changed(prev, params, k) {
				delete(out, "filter_id")
				break
			}
		}
	}
	return out
}

// shoppingState is the paging state: the SerpApi start offset of the upstream page and the index
// in it where the caller's page begins.
type shoppingState struct {
	Start  int `json:"start"`
	Offset int `json:"offset"`
	// SortToken is the shoprs token of Google's rating order, once a search sorted by rating found
	// it in the answer's filters.
	SortToken string `json:"sort_token,omitempty"`
}

// productRef is the record's Ref: what the immersive product lookup needs.
type productRef struct {
	PageToken string `json:"page_token"`
	ProductID string `json:"product_id,omitempty"`
}

type shoppingAnswer struct {
	ShoppingResults []json.RawMessage `json:"shopping_results"`
	Filters         []json.RawMessage `json:"filters"`
	Pagination      struct {
		Next json.RawMessage `json:"next"`
	} `json:"serpapi_pagination"`
}

func searchShopping(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	var st shoppingState
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil || st.Start < 0 || st.Offset < 0 {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	req := call.Request
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	q := url.Values{}
	query := strings.TrimSpace(req.Str("query"))
	if c := req.Str("condition"); c != "" {
		// google_shopping has no condition parameter; the new layout honours it in the query text.
		query += " " + c
	}
	q.Set("q", query)
	if s := req.Str("country"); s != "" {
		q.Set("gl", strings.ToLower(s))
	}
	if s := req.Str("language"); s != "" {
		q.Set("hl", s)
	}
	if s := strings.TrimSpace(req.Str("location")); s != "" {
		q.Set("location", s)
	}
	if s := req.Str("filter_id"); s != "" {
		q.Set("shoprs", s)
	}
	if f, ok := req.Float("price_min"); ok {
		q.Set("min_price", strconv.FormatFloat(f, 'f', -1, 64))
	}
	if f, ok := req.Float("price_max"); ok {
		q.Set("max_price", strconv.FormatFloat(f, 'f', -1, 64))
	}
	if s := sortBy[req.Str("sort")]; s != "" {
		q.Set("sort_by", s)
	}
	if st.SortToken != "" {
		q.Set("shoprs", st.SortToken)
	}
	if st.Start > 0 {
		q.Set("start", strconv.Itoa(st.Start))
	}

	var ans shoppingAnswer
	meta, err := serpapi.Search(ctx, call, shoppingEngine, q, &ans)
	if err != nil {
		return nil, err
	}
	if req.Str("sort") == sortRating && st.SortToken == "" {
		if st.SortToken, meta, err = ratingSort(ctx, call, q, &ans); err != nil {
			return nil, err
		}
	}
	page := &providers.Page{Records: []providers.Record{}, Filters: shoppingFilters(ans.Filters)}
	if meta.NoResults() || len(ans.ShoppingResults) == 0 {
		return page, nil
	}
	results := ans.ShoppingResults
	from := min(st.Offset, len(results))
	to := min(from+num, len(results))
	for _, raw := range results[from:to] {
		if rec, ok := shoppingRecord(raw); ok {
			page.Records = append(page.Records, rec)
		}
	}
	switch {
	case to < len(results):
		page.HasMore = true
		page.Next, _ = json.Marshal(shoppingState{Start: st.Start, Offset: to, SortToken: st.SortToken})
	default:
		if next := stringOf(ans.Pagination.Next); next != "" {
			start := st.Start + len(results)
			if s, err := strconv.Atoi(queryParam(next, "start")); err == nil && s > st.Start {
				start = s
			}
			page.HasMore = true
			page.Next, _ = json.Marshal(shoppingState{Start: start, SortToken: st.SortToken})
		}
	}
	return page, nil
}

// ratingSort re-runs a search sorted by rating through the rating option of the answer's "Sort
// by" filter group (its shoprs token), replacing ans. Without such an option Google offers no
// rating order for the search, and the sort value is refused naming the ones that work.
func ratingSort(ctx context.Context, call *providers.Call, q url.Values, ans *shoppingAnswer) (string, serpapi.Meta, error) {
	token := ratingToken(ans.Filters)
	if token == "" {
		return "", serpapi.Meta{}, providers.Invalid("Google Shopping offers no rating order for this search",
			providers.Violation{Path: "/sort", Message: "Google Shopping offers no rating order for this search; sort accepts " +
				"price_low_to_high or price_high_to_low here (omit sort for relevance)"})
	}
	q.Set("shoprs", token)
	*ans = shoppingAnswer{}
	meta, err := serpapi.Search(ctx, call, shoppingEngine, q, ans)
	return token, meta, err
}

// ratingToken finds the shoprs token of a rating order among the "Sort by" options of filters.
func ratingToken(raw []json.RawMessage) string {
	for _, g := range raw {
		group := objectOf(g)
		if !strings.Contains(strings.ToLower(stringOf(group["type"])), "sort") {
			continue
		}
		for _, o := range arrayOf(group["options"]) {
			opt := objectOf(o)
			text := strings.ToLower(stringOf(opt["text"]))
			if token := stringOf(opt["shoprs"]); token != "" && (strings.Contains(text, "rating") || strings.Contains(text, "review")) {
				return token
			}
		}
	}
	return ""
}

// shoppingFilters turns google_shopping's filters[{type, options[{text, shoprs}]}] into filters[]:
// the id is the option's shoprs token (what the filtered search sends back), the label its text,
// the group the filter's type. Options without a token (free-form price inputs) are left out.
func shoppingFilters(raw []json.RawMessage) []providers.Filter {
	out := []providers.Filter{}
	seen := map[string]bool{}
	for i, g := range raw {
		if i >= maxFilterGroups {
			break
		}
		group := objectOf(g)
		name := stringOf(group["type"])
		for _, o := range arrayOf(group["options"]) {
			opt := objectOf(o)
			id, label := stringOf(opt["shoprs"]), stringOf(opt["text"])
			if id == "" || label == "" || seen[id] {
				continue
			}
			seen[id] = true
			if name == "" {
				name = "Filter"
			}
			out = append(out, providers.Filter{ID: id, Label: label, Group: name})
		}
	}
	return out
}

// conditionWords recognise a tag that names an item's condition.
var conditionWords = []string{"used", "pre-owned", "preowned", "refurbished", "renewed", "open box", "second-hand", "secondhand", "new"}

// OfferRecord is a shopping.search record (besides title, url and snippet): one offer.
type OfferRecord struct {
	Condition    string   `json:"condition,omitempty" doc:"used, refurbished and the like, when the offer says so"`
	Delivery     string   `json:"delivery,omitempty"`
	Price        *float64 `json:"price,omitempty"`
	PriceDisplay string   `json:"price_display,omitempty" doc:"the price as Google shows it, with its currency"`
	Rating       *float64 `json:"rating,omitempty" doc:"0 to 5"`
	Reviews      *int     `json:"reviews,omitempty"`
	Seller       string   `json:"seller,omitempty"`
	Source       string   `json:"source"`
}

// ProductDetail is the details body of an offer: Google's product view. Fields are declared in
// key order (a detail is written by encoding/json, which keeps the declared order).
type ProductDetail struct {
	Brand          string       `json:"brand,omitempty"`
	Description    string       `json:"description,omitempty"`
	Offers         []StoreOffer `json:"offers"`
	Rating         *float64     `json:"rating,omitempty"`
	Reviews        *int         `json:"reviews,omitempty"`
	Specifications []Spec       `json:"specifications"`
	Title          string       `json:"title"`
}

// Spec is one product specification.
type Spec struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// StoreOffer is one store's offer of the product (fields in key order).
type StoreOffer struct {
	Details        []string `json:"details,omitempty"`
	ExtractedPrice *float64 `json:"extracted_price,omitempty"`
	ExtractedTotal *float64 `json:"extracted_total,omitempty"`
	Link           string   `json:"link,omitempty"`
	Merchant       string   `json:"merchant"`
	OriginalPrice  string   `json:"original_price,omitempty"`
	Price          string   `json:"price,omitempty"`
	Rating         *float64 `json:"rating,omitempty"`
	Reviews        *int     `json:"reviews,omitempty"`
	Shipping       string   `json:"shipping,omitempty"`
	Tag            string   `json:"tag,omitempty"`
	Title          string   `json:"title,omitempty"`
	Total          string   `json:"total,omitempty"`
}

// shoppingRecord maps one shopping_results entry.
func shoppingRecord(raw json.RawMessage) (providers.Record, bool) {
	item := objectOf(raw)
	if item == nil {
		return providers.Record{}, false
	}
	title := stringOf(item["title"])
	if title == "" {
		return providers.Record{}, false
	}
	data := &OfferRecord{Source: shoppingSource, PriceDisplay: stringOf(item["price"]), Seller: stringOf(item["source"]),
		Delivery: stringOf(item["delivery"])}
	rec := providers.Record{Title: title, Data: data}
	if u := httpURL(stringOf(item["product_link"])); u != "" {
		rec.URL = u
	} else if u := httpURL(stringOf(item["link"])); u != "" {
		rec.URL = u
	}
	if s := stringOf(item["snippet"]); s != "" {
		rec.Snippet = s
	}
	if p, ok := floatOf(item["extracted_price"]); ok && p >= 0 {
		data.Price = &p
	}
	if s := stringOf(item["second_hand_condition"]); s != "" {
		data.Condition = s
	} else if tag := stringOf(item["tag"]); tag != "" && namesCondition(tag) {
		data.Condition = tag
	}
	if r, ok := floatOf(item["rating"]); ok && r >= 0 && r <= 5 {
		data.Rating = &r
	}
	if n, ok := intOf(item["reviews"]); ok && n >= 0 {
		data.Reviews = &n
	}
	ref := productRef{PageToken: stringOf(item["immersive_product_page_token"]), ProductID: stringOf(item["product_id"])}
	if ref.PageToken == "" {
		ref.PageToken = queryParam(stringOf(item["serpapi_immersive_product_api"]), "page_token")
	}
	if ref.PageToken != "" {
		rec.Ref, _ = json.Marshal(ref)
	} else {
		rec.Actions = []string{} // no product token: no details
	}
	return rec, true
}

func namesCondition(tag string) bool {
	t := strings.ToLower(tag)
	for _, w := range conditionWords {
		if t == w || strings.Contains(t, w) && w != "new" {
			return true
		}
	}
	return false
}

// productDetails is the details lookup: Google's immersive product view of the record's product.
func productDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref productRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || ref.PageToken == "" {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this offer has no Google product token, so it has no details")
	}
	q := url.Values{"page_token": {ref.PageToken}, "more_stores": {"true"}}
	if s := call.Request.Str("country"); s != "" {
		q.Set("gl", strings.ToLower(s))
	}
	if s := call.Request.Str("language"); s != "" {
		q.Set("hl", s)
	}
	var ans struct {
		ProductResults json.RawMessage `json:"product_results"`
	}
	meta, err := serpapi.Search(ctx, call, productEngine, q, &ans)
	if err != nil {
		return nil, err
	}
	pr := objectOf(ans.ProductResults)
	if meta.NoResults() || pr == nil {
		return nil, providers.Errorf(providers.CodeNotFound, "Google no longer shows this product")
	}
	body, links := productDetail(pr, rec)
	return &providers.Detail{Body: body, Links: links}, nil
}

// productDetail maps product_results of google_immersive_product.
func productDetail(pr map[string]json.RawMessage, rec *providers.Record) (*ProductDetail, []providers.Link) {
	out := &ProductDetail{Title: stringOf(pr["title"]), Brand: stringOf(pr["brand"])}
	if out.Title == "" {
		out.Title = rec.Title
	}
	if r, ok := floatOf(pr["rating"]); ok {
		out.Rating = &r
	}
	if n, ok := intOf(pr["reviews"]); ok {
		out.Reviews = &n
	}
	about := objectOf(pr["about_the_product"])
	out.Description = stringOf(about["description"])
	out.Specifications = []Spec{}
	for _, f := range arrayOf(about["features"]) {
		m := objectOf(f)
		name, value := stringOf(m["title"]), stringOf(m["value"])
		if name == "" || value == "" || len(out.Specifications) >= maxSpecs {
			continue
		}
		out.Specifications = append(out.Specifications, Spec{Name: name, Value: value})
	}
	offers := []StoreOffer{}
	var links []providers.Link
	for _, s := range arrayOf(pr["stores"]) {
		if len(offers) >= maxOffers {
			break
		}
		m := objectOf(s)
		name := stringOf(m["name"])
		if name == "" {
			continue
		}
		o := StoreOffer{Merchant: name, Title: stringOf(m["title"]), Price: stringOf(m["price"]),
			OriginalPrice: stringOf(m["original_price"]), Shipping: stringOf(m["shipping"]), Total: stringOf(m["total"]),
			Tag: stringOf(m["tag"]), Details: stringsOf(m["details_and_offers"])}
		if f, ok := floatOf(m["extracted_price"]); ok {
			o.ExtractedPrice = &f
		}
		if f, ok := floatOf(m["extracted_total"]); ok {
			o.ExtractedTotal = &f
		}
		if r, ok := floatOf(m["rating"]); ok {
			o.Rating = &r
		}
		if n, ok := intOf(m["reviews"]); ok {
			o.Reviews = &n
		}
		if u := httpURL(stringOf(m["link"])); u != "" {
			o.Link = u
			if len(links) < maxOfferLinks {
				links = append(links, providers.Link{Label: fmt.Sprintf("Offer at %s", name), URL: u})
			}
		}
		offers = append(offers, o)
	}
	out.Offers = offers
	if rec.URL != "" {
		links = append([]providers.Link{{Label: "Product page", URL: rec.URL}}, links...)
	}
	if links == nil {
		links = []providers.Link{}
	}
	return out, links
}
