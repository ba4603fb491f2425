package fitness

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox's exercise search answers any words, muscle and equipment (issue 36): a synthetic
// catalog of exercises (movements of each muscle group with each kind of equipment, in a few
// variants) filtered as YMove filters (the muscle group, the equipment, every search word in the
// title; words the catalog lacks name exercises of their own), pageSize per page; a generated
// exercise's lookup describes it. The recorded requests (the chest and dumbbell golden, bench
// press, zzz) keep their recorded answers.
func init() {
	providers.RegisterGenerators(VideoProviderID,
		providers.GeneratedRoute{Path: "/api/v2/exercises", Generate: generateExercises},
		providers.GeneratedRoute{Path: "/api/v2/exercises/*", Generate: generateExercise})
}

var recordedExercises = providers.LimitResults("pageSize", providers.TopicSearch("search", "bench press"))

// movements are each muscle group's movements; equipment words are prefixed to them.
var movements = map[string][]string{
	"chest":      {"Bench Press", "Incline Press", "Fly", "Floor Press", "Squeeze Press"},
	"back":       {"Row", "Pullover", "Deadlift", "Pulldown", "Shrug"},
	"shoulders":  {"Overhead Press", "Lateral Raise", "Front Raise", "Rear Delt Fly", "Upright Row"},
	"biceps":     {"Curl", "Hammer Curl", "Preacher Curl", "Concentration Curl", "Spider Curl"},
	"triceps":    {"Overhead Extension", "Kickback", "Close-Grip Press", "Skull Crusher", "Pushdown"},
	"forearms":   {"Wrist Curl", "Reverse Curl", "Farmer's Carry", "Wrist Roller", "Plate Pinch"},
	"quads":      {"Squat", "Lunge", "Step-Up", "Split Squat", "Leg Extension"},
	"hamstrings": {"Romanian Deadlift", "Leg Curl", "Good Morning", "Single-Leg Deadlift", "Nordic Curl"},
	"glutes":     {"Hip Thrust", "Glute Bridge", "Glute Kickback", "Sumo Squat", "Frog Pump"},
	"calves":     {"Calf Raise", "Seated Calf Raise", "Single-Leg Calf Raise", "Tibialis Raise", "Jump Rope"},
	"core":       {"Crunch", "Russian Twist", "Woodchop", "Leg Raise", "Plank Drag"},
	"full_body":  {"Clean", "Thruster", "Snatch", "Swing", "Turkish Get-Up"},
}

var muscleOrder = []string{"chest", "back", "shoulders", "biceps", "triceps", "forearms", "quads", "hamstrings", "glutes", "calves", "core", "full_body"}

var equipmentOrder = []string{"barbell", "dumbbell", "kettlebell", "cable", "machine", "bodyweight"}

var equipmentWord = map[string]string{"barbell": "Barbell", "dumbbell": "Dumbbell", "kettlebell": "Kettlebell", "cable": "Cable",
	"machine": "Machine", "bodyweight": "Bodyweight"}

var variants = []string{"", "Single-Arm ", "Tempo ", "Paused "}

var secondary = map[string][]any{"chest": {"shoulders", "triceps"}, "back": {"biceps", "forearms"}, "shoulders": {"triceps"},
	"biceps": {"forearms"}, "triceps": {"chest"}, "forearms": {"biceps"}, "quads": {"glutes", "core"}, "hamstrings": {"glutes"},
	"glutes": {"hamstrings"}, "calves": {}, "core": {"shoulders"}, "full_body": {"core", "glutes", "shoulders"}}

// generatedExercise is a generated exercise, remembered so that its lookup describes it.
var (
	exercisesMu sync.Mutex
	exercises   = map[string]map[string]any{}
)

func exerciseID(title, muscle, equipment string) string {
	r := providers.Rand("exercise", title, muscle, equipment)
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff)
}

func generateExercises(r *http.Request, fixture []byte, status int) ([]byte, int) {
	q := r.URL.Query()
	search := strings.TrimSpace(q.Get("search"))
	muscle, equipment := q.Get("muscleGroup"), q.Get("equipment")
	ls := strings.ToLower(search)
	if status != http.StatusOK || ls == "zzz" || providers.IsSandboxMiss(search) || ls == "bench press" ||
		(search == "" && muscle == "chest" && equipment == "dumbbell") {
		return recordedExercises(r, fixture, status)
	}
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["data"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	muscles, equipments := muscleOrder, equipmentOrder
	if muscle != "" {
		muscles = []string{muscle}
	}
	if equipment != "" {
		equipments = []string{equipment}
	}
	words := strings.Fields(ls)
	matches := func(title string) bool {
		t := strings.ToLower(title)
		for _, w := range words {
			if !strings.Contains(t, w) {
				return false
			}
		}
		return true
	}
	type entry struct{ title, muscle, equipment string }
	var all []entry
	for _, v := range variants {
		for _, m := range muscles {
			for _, mv := range movements[m] {
				for _, e := range equipments {
					if t := v + equipmentWord[e] + " " + mv; matches(t) {
						all = append(all, entry{t, m, e})
					}
				}
			}
		}
	}
	if len(all) == 0 && search != "" {
		// Words the catalog lacks name exercises of their own, of the asked muscle group or else
		// of the group one of whose movements shares a word with them (full body otherwise).
		if muscle == "" {
			muscles = []string{guessMuscle(words)}
		}
		for _, v := range variants {
			for _, m := range muscles {
				for _, e := range equipments {
					all = append(all, entry{v + equipmentWord[e] + " " + providers.TitleCase(search), m, e})
				}
			}
		}
	}
	size, _ := strconv.Atoi(q.Get("pageSize"))
	if size < 1 {
		size = 10
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	var out []any
	for i := (page - 1) * size; i < min(page*size, len(all)); i++ {
		e := all[i]
		rec := providers.FromTemplate(tmpls, i)
		id := exerciseID(e.title, e.muscle, e.equipment)
		slug := providers.Slug(e.title)
		rec["id"], rec["title"], rec["slug"] = id, e.title, slug
		rec["description"] = fmt.Sprintf("A %s exercise for the %s (synthetic test-mode description).", strings.ToLower(equipmentWord[e.equipment]), strings.ReplaceAll(e.muscle, "_", " "))
		rec["instructions"] = []any{"Set up with the " + e.equipment + " in a stable position.", "Perform the " + strings.ToLower(e.title) + " through a full, controlled range of motion.", "Return to the start and repeat."}
		rec["importantPoints"] = []any{"Keep the movement controlled.", "Stop if you feel pain."}
		rec["muscleGroup"], rec["equipment"] = e.muscle, e.equipment
		rec["secondaryMuscles"] = secondary[e.muscle]
		rec["category"] = "strength"
		rec["difficulty"] = []string{"beginner", "intermediate", "advanced"}[providers.Rand("difficulty", id).IntN(3)]
		rec["hasVideo"], rec["hasVideoWhite"], rec["hasVideoGym"] = true, true, false
		exercisesMu.Lock()
		if len(exercises) > 20000 {
			clear(exercises)
		}
		exercises[id] = providers.Clone(rec).(map[string]any)
		exercisesMu.Unlock()
		out = append(out, rec)
	}
	if out == nil {
		out = []any{}
	}
	doc["data"] = out
	doc["pagination"] = map[string]any{"page": page, "pageSize": size, "total": len(all), "totalPages": (len(all) + size - 1) / size}
	return providers.JSONBytes(doc), http.StatusOK
}

// generateExercise answers the lookup of a generated exercise, with its demonstration's links.
func generateExercise(r *http.Request, fixture []byte, status int) ([]byte, int) {
	id := strings.TrimPrefix(r.URL.Path, "/api/v2/exercises/")
	exercisesMu.Lock()
	rec, ok := exercises[id]
	exercisesMu.Unlock()
	if !ok || status == http.StatusOK {
		return fixture, status
	}
	tmpl := providers.JSONObject(mustFile("exercise_" + sandboxExercises[0] + ".json"))
	data, _ := tmpl["data"].(map[string]any)
	if data == nil {
		return fixture, status
	}
	slug, _ := rec["slug"].(string)
	for k, v := range providers.Clone(rec).(map[string]any) {
		data[k] = v
	}
	const host = "https://exercisevideo.sandbox.invalid"
	data["videoUrl"] = host + "/videos/" + slug + "/play_720p.mp4"
	data["videoHlsUrl"] = host + "/videos/" + slug + "/playlist.m3u8"
	data["thumbnailUrl"] = host + "/thumbnails/" + slug + "/default.jpg"
	if th, ok := data["thumbnails"].(map[string]any); ok {
		for k := range th {
			th[k] = host + "/thumbnails/" + slug + "/" + k + ".jpg"
		}
	}
	return providers.JSONBytes(tmpl), http.StatusOK
}

func mustFile(name string) []byte {
	b, _ := sandboxFiles.ReadFile("sandbox/" + name)
	return b
}

// guessMuscle is the muscle group of the first movement sharing a word with the search.
func guessMuscle(words []string) string {
	for _, m := range muscleOrder {
		for _, mv := range movements[m] {
			for _, w := range strings.Fields(strings.ToLower(mv)) {
				for _, q := range words {
					if w == q {
						return m
					}
				}
			}
		}
	}
	return "full_body"
}
