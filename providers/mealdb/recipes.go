package mealdb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// selectors are the request fields that choose the search, in the order the rule names them.
// Exactly one is allowed per request.
var selectors = []string{"query", "ingredient", "category", "cuisine"}

// RecipesSearch is recipes.search (spec 4.31).
var RecipesSearch = &providers.Capability{
	ID:      "recipes.search",
	Fresh:   24 * time.Hour,
	Title:   "Recipe search",
	Summary: "Find recipes in TheMealDB by dish name, main ingredient, category or cuisine.",
	Description: "Searches TheMealDB, a free crowd-sourced recipe database, with exactly one of: query (words of " +
		"the dish name), ingredient (a main ingredient, e.g. \"chicken breast\"), category (e.g. \"Seafood\", " +
		"\"Dessert\", \"Vegetarian\") or cuisine (e.g. \"Italian\", \"Mexican\", \"Japanese\"); combining them is " +
		"refused. Each record is one meal: title, url (the meal's page on TheMealDB), attribution (always) and, " +
		"for name searches, snippet (the start of the instructions), category and cuisine when TheMealDB has " +
		"them. Ingredient, category and cuisine filters list only meal names, so their records carry no snippet, " +
		"category or cuisine. The whole result set is held in the session: more pages through it locally for " +
		"free. update: one supplied selector replaces the previous one; num is preserved unless changed; empty " +
		"params refresh the current search. Record action details (free): {id, name, category, cuisine, " +
		"ingredients: [{ingredient, measure}], instructions, tags, thumbnail, links: {source, video}} with links " +
		"to the recipe's source and its video when TheMealDB lists them; a meal not captured by the search is " +
		"looked up again at no charge.",
	Topic:     "Food and fitness",
	Request:   recipesRequestSchema,
	Rules:     recipesRules,
	Merge:     mergeRecipes,
	Paging:    providers.PagingLocal,
	Cost:      providers.Cost{Typical: 0, Basis: "Free: TheMealDB is a free public recipe database; searches, local more pages and details cost no credits."},
	Deadline:  15 * time.Second,
	Providers: []string{ProviderID},
	Actions: []providers.Action{{
		Name: "details",
		Description: "The full recipe: ingredients with their measures, instructions, tags, picture and links to the " +
			"recipe's source and video when present. Free; a meal not captured at search time is looked up again at no charge.",
		Kind:    providers.ActionLookup,
		Credits: 0,
		Run:     mealDetails,
	}},
	Examples: []providers.Example{
		{Title: "Recipes whose name mentions stew", Body: providers.ExampleBody(`{"query": "stew", "num": 5}`)},
		{Title: "Recipes with a main ingredient", Body: providers.ExampleBody(`{"ingredient": "garlic"}`)},
		{Title: "Seafood recipes", Body: providers.ExampleBody(`{"category": "Seafood", "num": 3}`)},
		{Title: "Italian recipes", Body: providers.ExampleBody(`{"cuisine": "Italian"}`)},
	},
	Execute: searchRecipes,
	Record:  RecipeRecord{},
}

// RecipeRecord is a recipes.search record (besides title, url and snippet).
type RecipeRecord struct {
	Attribution string `json:"attribution" doc:"always set: the data comes from TheMealDB"`
	Category    string `json:"category,omitempty" doc:"name searches only"`
	Cuisine     string `json:"cuisine,omitempty" doc:"name searches only"`
}

const recipesRequestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "recipes.search request",
  "description": "Search TheMealDB's recipes with exactly one of query, ingredient, category and cuisine; combining them is refused.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "Words of the dish name, for example \"arrabiata\" or \"chicken curry\"; matched against meal names. Not combinable with ingredient, category or cuisine.",
      "examples": ["stew", "arrabiata"]
    },
    "ingredient": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "One main ingredient, named as TheMealDB lists ingredients (for example \"chicken breast\", \"garlic\", \"salmon\"); only meals using it are returned. Not combinable with query, category or cuisine.",
      "examples": ["chicken breast", "garlic"]
    },
    "category": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "A TheMealDB meal category: Beef, Breakfast, Chicken, Dessert, Goat, Lamb, Miscellaneous, Pasta, Pork, Seafood, Side, Starter, Vegan or Vegetarian. Not combinable with query, ingredient or cuisine.",
      "examples": ["Seafood", "Dessert"]
    },
    "cuisine": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "A cuisine as TheMealDB names its areas, usually a nationality adjective such as Italian, Mexican, Japanese, Indian or British. Not combinable with query, ingredient or category.",
      "examples": ["Italian", "Mexican"]
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Results per page (1 to 20); more serves the following pages of the same result set for free."
    }
  }
}`

// recipesRules: exactly one of query, ingredient, category and cuisine (spec 4.31). A missing
// selector is a body-level violation; each selector beyond the first (in the order query,
// ingredient, category, cuisine) is a violation at its own path.
func recipesRules(req providers.Request, _ *providers.Update) []providers.Violation {
	var given []string
	for _, k := range selectors {
		if req.Has(k) {
			given = append(given, k)
		}
	}
	if len(given) == 0 {
		return []providers.Violation{{Path: "", Message: "exactly one of query, ingredient, category or cuisine is required"}}
	}
	var vs []providers.Violation
	for _, k := range given[1:] {
		vs = append(vs, providers.Violation{Path: "/" + k,
			Message: fmt.Sprintf("%s cannot be combined with %s; send exactly one of query, ingredient, category or cuisine", k, given[0])})
	}
	return vs
}

// mergeRecipes folds update params into the stored query: a selector in params replaces the
// previous selector (so switching from query to cuisine needs no null), num is kept unless
// params change it, and empty params leave the query as it was (a refresh). A null value
// removes its key, as in the default merge.
func mergeRecipes(prev, params providers.Request) providers.Request {
	out := prev.Clone()
	for _, k := range selectors {
		if v, ok := params[k]; ok && v != nil {
			for _, s := range selectors {
				delete(out, s)
			}
			break
		}
	}
	for k, v := range params {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// endpoint is the upstream call one request selector makes.
type endpoint struct {
	path  string // "/search.php" or "/filter.php"
	param string // s, i, c or a
	value string
	full  bool // search.php answers full meals; filter.php only idMeal, strMeal, strMealThumb
}

func endpointOf(req providers.Request) (endpoint, error) {
	switch {
	case req.Has("query"):
		return endpoint{path: "/search.php", param: "s", value: strings.TrimSpace(req.Str("query")), full: true}, nil
	case req.Has("ingredient"):
		// TheMealDB documents ingredient filters with underscores for spaces (i=chicken_breast).
		return endpoint{path: "/filter.php", param: "i", value: strings.Join(strings.Fields(req.Str("ingredient")), "_")}, nil
	case req.Has("category"):
		return endpoint{path: "/filter.php", param: "c", value: strings.TrimSpace(req.Str("category"))}, nil
	case req.Has("cuisine"):
		return endpoint{path: "/filter.php", param: "a", value: strings.TrimSpace(req.Str("cuisine"))}, nil
	}
	return endpoint{}, providers.InvalidField("", "exactly one of query, ingredient, category or cuisine is required")
}

// apiPath puts the deployment's key in front of the endpoint: /{key}/search.php. Live calls have
// one (the provider is KeyRequired); test keys reach the sandbox, which accepts any.
func apiPath(u *providers.Upstream, endpoint string) string {
	return "/" + url.PathEscape(u.Key) + endpoint
}

const filterNote = "TheMealDB's ingredient, category and cuisine filters list only meal names and pictures, so these " +
	"records carry no snippet, category or cuisine; details looks up ingredients, measures, instructions and links for free."

const emptyFilterNote = "No meal matched. TheMealDB matches ingredient, category and cuisine names exactly as it lists them " +
	"(for example ingredient \"chicken breast\", category \"Seafood\", cuisine \"Italian\")."

// searchRecipes runs the one upstream call of the selector and returns the whole result set in one
// page; the gateway holds it in the session and slices it by num (local paging).
func searchRecipes(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	ep, err := endpointOf(call.Request)
	if err != nil {
		return nil, err
	}
	u := call.Upstream(ProviderID)
	meals, err := fetchMeals(ctx, u, ep.path, url.Values{ep.param: {ep.value}})
	if err != nil {
		return nil, err
	}
	page := &providers.Page{Records: make([]providers.Record, 0, len(meals))}
	seen := map[string]bool{}
	for _, m := range meals {
		rec, ok := mealRecord(m, ep.full)
		if !ok {
			continue
		}
		if id := m.id(); id != "" {
			if seen[id] {
				continue
			}
			seen[id] = true
		}
		page.Records = append(page.Records, rec)
	}
	if !ep.full {
		if len(page.Records) > 0 {
			page.Notes = append(page.Notes, filterNote)
		} else {
			page.Notes = append(page.Notes, emptyFilterNote)
		}
	}
	return page, nil
}

// fetchMeals calls one endpoint and returns the meals of its {"meals": [...]} answer; a null
// (or a "no data found" message) is an empty result.
func fetchMeals(ctx context.Context, u *providers.Upstream, endpoint string, q url.Values) ([]meal, error) {
	var body map[string]json.RawMessage
	if err := u.GetJSON(ctx, apiPath(u, endpoint), q, &body); err != nil {
		return nil, err
	}
	return decodeMeals(body)
}
