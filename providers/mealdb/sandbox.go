package mealdb

import (
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox answers any name, ingredient, category or cuisine with a synthetic set of meals
// about it (issue 36): names carry the query's words, the ingredient is among each meal's
// ingredients, the category and cuisine (TheMealDB's area) are each meal's; a generated meal's
// lookup is the same meal in full. The recorded selectors (the stew search, garlic, Seafood,
// Italian) get the recorded answers.
func init() {
	providers.RegisterGenerators(ProviderID, providers.GeneratedRoute{Path: "/api/json/v1/*", Generate: generateMeals})
}

type synthMeal struct{ Name, Category, Area, Ingredient string }

// mealsAnswer is TheMealDB's answer: its list of meals (full meals or filterMeals).
type mealsAnswer[T any] struct {
	Meals []T `json:"meals"`
}

// filterMeal is a meal of TheMealDB's filter.php answer: its name, thumbnail and id only.
type filterMeal struct {
	Name      string `json:"strMeal"`
	Thumbnail string `json:"strMealThumb"`
	ID        string `json:"idMeal"`
}

// mealsJSON is the encoded answer listing meals.
func mealsJSON[T any](meals ...T) []byte {
	return providers.JSONBytes(mealsAnswer[T]{Meals: meals})
}

var synthMeals = struct {
	sync.Mutex
	m map[string]synthMeal
}{m: map[string]synthMeal{}}

var dishes = []string{"Stew", "Pie", "Salad", "Curry", "Soup", "Bake", "Skewers", "Risotto", "Tart", "Noodles", "Dumplings", "Roast"}

// recordedSelectors are the selectors whose recorded answers the sandbox keeps.
var recordedSelectors = map[string]string{"s": "stew", "i": "garlic", "c": "seafood", "a": "italian"}

func generateMeals(r *http.Request, fixture []byte, status int) ([]byte, int) {
	endpoint := path.Base(r.URL.Path)
	q := r.URL.Query()
	if endpoint == "lookup.php" {
		return lookupMeal(q.Get("i"), fixture, status)
	}
	sel, val := "", ""
	for _, k := range []string{"s", "i", "c", "a"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			sel, val = k, v
			break
		}
	}
	if sel == "" || status != http.StatusOK {
		return fixture, status
	}
	if strings.EqualFold(val, recordedSelectors[sel]) || (sel == "s" && providers.IsSandboxMiss(val)) {
		return providers.TopicSearch("s", "stew")(r, fixture, status)
	}
	if providers.IsSandboxMiss(val) {
		return []byte(`{"meals":null}`), http.StatusOK
	}
	word := providers.TitleCase(strings.ReplaceAll(val, "_", " "))
	seed := sel + "\x00" + strings.ToLower(val)
	n := 4 + providers.Rand("meals", seed).IntN(8)
	var full []map[string]any
	var found []filterMeal
	tmplDoc := providers.JSONObject(readSandbox("search_stew.json"))
	tmpls := providers.Templates(tmplDoc["meals"])
	for i := range n {
		rr := providers.Rand("meal", seed, strconv.Itoa(i))
		m := synthMeal{Category: []string{"Beef", "Chicken", "Vegetarian", "Pasta", "Seafood", "Dessert"}[rr.IntN(6)],
			Area: []string{"British", "French", "Japanese", "Mexican", "Indian", "Moroccan"}[rr.IntN(6)], Ingredient: "Onion"}
		dish := dishes[(i+rr.IntN(3))%len(dishes)]
		switch sel {
		case "s":
			m.Name = fmt.Sprintf("%s %s", word, dish)
		case "i":
			m.Name, m.Ingredient = fmt.Sprintf("%s %s", word, dish), word
		case "c":
			m.Name, m.Category = fmt.Sprintf("%s %s", word, dish), word
		case "a":
			m.Name, m.Area = fmt.Sprintf("%s %s", word, dish), word
		}
		if i >= len(dishes) {
			m.Name += fmt.Sprintf(" No. %d", i/len(dishes)+1)
		}
		id := strconv.Itoa(900000 + int(providers.Rand("meal-id", seed, strconv.Itoa(i)).Uint32()%99999))
		synthMeals.Lock()
		if len(synthMeals.m) >= 20000 {
			synthMeals.m = map[string]synthMeal{}
		}
		synthMeals.m[id] = m
		synthMeals.Unlock()
		if sel == "s" {
			full = append(full, fullMeal(providers.FromTemplate(tmpls, i), id, m))
		} else {
			found = append(found, filterMeal{Name: m.Name, Thumbnail: "https://www.themealdb.com/images/media/meals/sandbox.jpg", ID: id})
		}
	}
	if sel == "s" {
		return mealsJSON(full...), http.StatusOK
	}
	return mealsJSON(found...), http.StatusOK
}

func readSandbox(name string) []byte {
	b, _ := fs.ReadFile(sandboxFiles, "sandbox/"+name)
	return b
}

// fullMeal fills a full meal template (search.php, lookup.php) with a synthetic meal.
func fullMeal(rec map[string]any, id string, m synthMeal) map[string]any {
	if rec == nil {
		// A recorded meal holds whatever keys TheMealDB sent, so it stays a generic map (an empty
		// one when there is no template).
		rec = map[string]any{}
	}
	rec["idMeal"], rec["strMeal"], rec["strCategory"], rec["strArea"] = id, m.Name, m.Category, m.Area
	rec["strInstructions"] = fmt.Sprintf("A synthetic test-mode recipe (not a real one): prepare the %s, cook it with the %s, season and serve.",
		strings.ToLower(m.Name), strings.ToLower(m.Ingredient))
	for n := 1; n <= 20; n++ {
		rec[fmt.Sprintf("strIngredient%d", n)], rec[fmt.Sprintf("strMeasure%d", n)] = "", ""
	}
	rec["strIngredient1"], rec["strMeasure1"] = m.Ingredient, "2 cups"
	rec["strIngredient2"], rec["strMeasure2"] = "Salt", "1 pinch"
	rec["strTags"], rec["strYoutube"], rec["strSource"] = "Sandbox", "", ""
	return rec
}

func lookupMeal(id string, fixture []byte, status int) ([]byte, int) {
	synthMeals.Lock()
	m, ok := synthMeals.m[id]
	synthMeals.Unlock()
	if !ok {
		return fixture, status
	}
	doc := providers.JSONObject(readSandbox("lookup_52771.json"))
	tmpls := providers.Templates(doc["meals"])
	return mealsJSON(fullMeal(providers.FromTemplate(tmpls, 0), id, m)), http.StatusOK
}
