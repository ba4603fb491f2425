package mealdb

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// attribution is the record key the spec requires on every record.
const attribution = "Recipe data from TheMealDB (https://www.themealdb.com), a free crowd-sourced recipe database."

// maxSnippet bounds the snippet taken from the start of a meal's instructions (runes).
const maxSnippet = 240

// maxIngredients is the number of strIngredientN / strMeasureN slots of a TheMealDB meal.
const maxIngredients = 20

var mealIDPattern = regexp.MustCompile(`^[0-9]+$`)

// meal is one element of TheMealDB's "meals" array, kept raw so that a field of an unexpected
// JSON type reads as absent instead of failing the whole answer.
type meal map[string]json.RawMessage

// decodeMeals reads the "meals" member of an answer: an array of meals; null when nothing
// matched; some clients report a "no data found" string in its place, read as no result.
func decodeMeals(body map[string]json.RawMessage) ([]meal, error) {
	raw, ok := body["meals"]
	if !ok {
		return nil, providers.Errorf(providers.CodeProviderError, "mealdb answered without a meals list")
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil, nil
	case raw[0] == '"':
		var msg string
		_ = json.Unmarshal(raw, &msg)
		if noData(msg) {
			return nil, nil
		}
		return nil, providers.Errorf(providers.CodeProviderError, "mealdb reported: %s", providers.Clip(msg, 200))
	case raw[0] != '[':
		return nil, providers.Errorf(providers.CodeProviderError, "mealdb answered a meals member that is not a list")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "mealdb answered a malformed meals list")
	}
	out := make([]meal, 0, len(items))
	for _, it := range items {
		var m meal
		if err := json.Unmarshal(it, &m); err != nil || m == nil {
			continue // not an object: skip this element only
		}
		out = append(out, m)
	}
	return out, nil
}

func noData(msg string) bool {
	m := strings.ToLower(strings.TrimSpace(msg))
	return m == "" || strings.Contains(m, "no data") || strings.Contains(m, "not found") || strings.Contains(m, "none found")
}

// str reads a string field, trimmed; null, absent and other JSON types are "".
func (m meal) str(key string) string {
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// id is the meal id when it is the numeric id TheMealDB uses (a string; a JSON number is read
// too), else "".
func (m meal) id() string {
	id := m.str("idMeal")
	if id == "" {
		var n json.Number
		if json.Unmarshal(m["idMeal"], &n) == nil {
			id = n.String()
		}
	}
	if !mealIDPattern.MatchString(id) {
		return ""
	}
	return id
}

// title is the meal name, or "Meal <id>" when the name is missing.
func (m meal) title() string {
	if t := collapse(m.str("strMeal")); t != "" {
		return t
	}
	if id := m.id(); id != "" {
		return "Meal " + id
	}
	return ""
}

// cuisine is strArea; TheMealDB files meals of no known cuisine under "Unknown", which is left out.
func (m meal) cuisine() string {
	a := m.str("strArea")
	if strings.EqualFold(a, "unknown") {
		return ""
	}
	return a
}

// mealRef is what the details lookup needs of a record.
type mealRef struct {
	ID string `json:"id"`
}

// mealRecord maps one meal to a record; ok is false when it has neither a name nor an id. full
// says the meal came from search.php with every field; such a meal's details are captured now.
func mealRecord(m meal, full bool) (providers.Record, bool) {
	title := m.title()
	if title == "" {
		return providers.Record{}, false
	}
	data := &RecipeRecord{Attribution: attribution}
	rec := providers.Record{Title: title, Data: data}
	id := m.id()
	if id != "" {
		rec.URL = mealPage(id)
		rec.Ref, _ = json.Marshal(mealRef{ID: id})
	}
	if full {
		if c := m.str("strCategory"); c != "" {
			data.Category = c
		}
		if a := m.cuisine(); a != "" {
			data.Cuisine = a
		}
		rec.Snippet = snippet(m.str("strInstructions"))
		rec.Stored = map[string]*providers.Detail{"details": mealDetail(m)}
	} else if id == "" {
		// Neither a stored detail nor an id to look one up with.
		rec.Actions = []string{}
	}
	return rec, true
}

func mealPage(id string) string { return siteURL + "/meal/" + id }

// Detail body of the details action.
type detailBody struct {
	ID           string       `json:"id,omitempty"`
	Name         string       `json:"name"`
	Category     string       `json:"category,omitempty"`
	Cuisine      string       `json:"cuisine,omitempty"`
	Ingredients  []ingredient `json:"ingredients"`
	Instructions string       `json:"instructions,omitempty"`
	Tags         []string     `json:"tags,omitempty"`
	Thumbnail    string       `json:"thumbnail,omitempty"`
	Links        detailLinks  `json:"links"`
}

type ingredient struct {
	Ingredient string `json:"ingredient"`
	Measure    string `json:"measure,omitempty"`
}

type detailLinks struct {
	Source string `json:"source,omitempty"`
	Video  string `json:"video,omitempty"`
}

// mealDetail maps a full meal (search.php or lookup.php) to the details answer.
func mealDetail(m meal) *providers.Detail {
	b := detailBody{
		ID:           m.id(),
		Name:         m.title(),
		Category:     m.str("strCategory"),
		Cuisine:      m.cuisine(),
		Ingredients:  ingredients(m),
		Instructions: instructions(m.str("strInstructions")),
		Tags:         tags(m.str("strTags")),
		Thumbnail:    webURL(m.str("strMealThumb")),
		Links:        detailLinks{Source: webURL(m.str("strSource")), Video: webURL(m.str("strYoutube"))},
	}
	d := &providers.Detail{Body: b, Links: []providers.Link{}}
	if b.Links.Source != "" {
		d.Links = append(d.Links, providers.Link{Label: "Recipe source", URL: b.Links.Source})
	}
	if b.Links.Video != "" {
		d.Links = append(d.Links, providers.Link{Label: "Video", URL: b.Links.Video})
	}
	return d
}

// ingredients pairs strIngredientN with strMeasureN (N = 1..20); empty slots (TheMealDB sends ""
// or null, and " " measures) are dropped, as is a measure without an ingredient.
func ingredients(m meal) []ingredient {
	out := []ingredient{}
	for i := 1; i <= maxIngredients; i++ {
		n := strconv.Itoa(i)
		name := collapse(m.str("strIngredient" + n))
		if name == "" {
			continue
		}
		out = append(out, ingredient{Ingredient: name, Measure: collapse(m.str("strMeasure" + n))})
	}
	return out
}

// instructions normalises line ends (TheMealDB uses \r\n) and trims blank lines at the ends.
func instructions(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.TrimSpace(s)
}

// tags splits strTags ("Pasta,Curry"), trimming and de-duplicating.
func tags(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	return out
}

// webURL keeps an absolute http(s) URL and drops anything else.
func webURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}

// snippet is the start of the instructions on one line, cut at a word boundary.
func snippet(s string) string {
	return providers.ClipLine(s, maxSnippet)
}

// collapse joins whitespace runs into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
