package fitness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

const (
	// videoAttribution is the attribution of every exercisevideo record.
	videoAttribution = "Exercise data and demonstration videos: YMove Exercise Video API (ymove.app)"
	// noVideoReason is video_unavailable_reason when YMove has no clip for an exercise.
	noVideoReason = "the provider has no demonstration video for this exercise"
	// workoutsPath is the console page a workout_resource links to (signed-in users of the tenant).
	workoutsPath = "/console/workouts/"
)

// Exercises is fitness.exercises (spec section 4.26).
var Exercises = &providers.Capability{
	ID:       "fitness.exercises",
	Personal: true, // saves demonstrations to the caller's account and links into it
	Title:    "Exercise search with demonstration videos",
	Summary:  "Find strength and fitness exercises by name, target muscle or equipment, with instructions and a demonstration video saved to your workouts.",
	Description: "Searches the YMove exercise library. Give at least one of `query` (words of the exercise name, e.g. " +
		"\"bench press\"), `muscle` (chest, back, shoulders, biceps, triceps, forearms, quads, hamstrings, glutes, calves, " +
		"core or full_body; common names such as abs, quadriceps, lats or delts are understood) and `equipment` " +
		"(barbell, dumbbell, kettlebell, cable, machine or bodyweight); they combine. `num` sets the page size (1 to 20, " +
		"default 10). Each record is one exercise: title, snippet (its description) and the keys attribution and " +
		"video_available (always), muscles (the primary muscle group first, then the secondary muscles) and equipment " +
		"when known. An exercise with a demonstration video is saved to your account's workouts area and carries " +
		"workout_resource {id, url, title, video_available}: url opens the demonstration in the console and requires " +
		"signing in to this same account; the saved workout outlives this search. An exercise without a video carries " +
		"video_unavailable_reason instead. Retained legacy text-only sessions (wger data) continue with text-only records " +
		"that also carry secondary_muscles, author and licence. Every search, more and update costs 10 credits, empty " +
		"pages included, with no plan multiplier. Follow-ups: more (next provider page), update (change any field; " +
		"paging restarts) and the record action details (free): the stored instructions, key points and the viewing link.",
	Topic:   "Food and fitness",
	Request: requestSchema,
	Rules:   rules,
	Paging:  providers.PagingPage,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The exercise as stored at search time: description, step-by-step instructions, key points, muscles, " +
			"equipment, difficulty, and the link to its saved workout (demonstration video; sign-in required). Free.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical:      10,
		Basis:        "10 credits per search page (execute, more and update), empty pages included, never multiplied by the plan; details, playback and video renewal are free",
		NoMultiplier: true,
	},
	Deadline:  45 * time.Second,
	Providers: []string{VideoProviderID, WgerProviderID},
	Examples: []providers.Example{
		{Title: "Chest exercises with dumbbells", Body: providers.ExampleBody(`{"muscle": "chest", "equipment": "dumbbell", "num": 5}`)},
		{Title: "An exercise by name", Body: providers.ExampleBody(`{"query": "bench press"}`)},
		{Title: "Leg exercises you can do with a kettlebell", Body: providers.ExampleBody(`{"muscle": "quadriceps", "equipment": "kettlebell"}`)},
	},
	Execute: func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
		return execute(ctx, call, nil)
	},
	Record: ExerciseRecord{},
}

const requestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "fitness.exercises request",
  "description": "Search exercises by name, target muscle and equipment. Give at least one of query, muscle and equipment; they combine.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "Words of the exercise name, for example \"bench press\" or \"squat\". Must not be blank."
    },
    "muscle": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "Target muscle group: chest, back, shoulders, biceps, triceps, forearms, quads, hamstrings, glutes, calves, core or full_body. Common names are understood (abs, quadriceps, lats, delts, pecs, full body, ...). Must not be blank."
    },
    "equipment": {
      "type": "string",
      "minLength": 1,
      "maxLength": 120,
      "pattern": "\\S",
      "description": "Equipment: barbell, dumbbell, kettlebell, cable, machine or bodyweight (also: body weight, none, dumbbells, ...). Must not be blank."
    },
    "num": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20,
      "default": 10,
      "description": "Exercises per page, 1 to 20."
    }
  }
}`

// muscleSlugs maps the names a caller may use to YMove's muscleGroup values (the SDK's
// MuscleGroupSlug list). Keys are normalized (see normalize).
var muscleSlugs = map[string]string{
	"chest": "chest", "pecs": "chest", "pectorals": "chest", "pectoral": "chest",
	"back": "back", "lats": "back", "lat": "back", "upper back": "back", "lower back": "back", "latissimus": "back",
	"shoulders": "shoulders", "shoulder": "shoulders", "delts": "shoulders", "deltoids": "shoulders", "deltoid": "shoulders",
	"biceps": "biceps", "bicep": "biceps",
	"triceps": "triceps", "tricep": "triceps",
	"forearms": "forearms", "forearm": "forearms",
	"quads": "quads", "quad": "quads", "quadriceps": "quads", "thighs": "quads",
	"hamstrings": "hamstrings", "hamstring": "hamstrings",
	"glutes": "glutes", "glute": "glutes", "gluteus": "glutes", "buttocks": "glutes",
	"calves": "calves", "calf": "calves",
	"core": "core", "abs": "core", "abdominals": "core", "abdominal": "core", "obliques": "core",
	"full body": "full_body", "fullbody": "full_body", "whole body": "full_body", "total body": "full_body",
}

// equipmentSlugs maps the names a caller may use to YMove's equipment values (EquipmentSlug).
var equipmentSlugs = map[string]string{
	"barbell": "barbell", "barbells": "barbell",
	"dumbbell": "dumbbell", "dumbbells": "dumbbell",
	"kettlebell": "kettlebell", "kettlebells": "kettlebell",
	"cable": "cable", "cables": "cable", "cable machine": "cable",
	"machine": "machine", "machines": "machine",
	"bodyweight": "bodyweight", "body weight": "bodyweight", "body only": "bodyweight", "none": "bodyweight", "no equipment": "bodyweight",
}

// normalize folds case, "-" and "_" and runs of spaces, so "Full-Body" and "full_body" meet.
func normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// accepted lists the provider values of a vocabulary, for messages.
func accepted(vocab map[string]string) string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vocab {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// rules checks the rules beyond the schema: at least one of query, muscle and equipment (an empty
// search would list the provider's whole catalog at 10 credits a page), and muscle and equipment
// from the provider's vocabularies (an unknown value would only come back as the provider's 400).
func rules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	if !req.Has("query") && !req.Has("muscle") && !req.Has("equipment") {
		vs = append(vs, providers.Violation{Path: "", Message: "give at least one of query, muscle and equipment"})
	}
	for _, f := range []struct {
		field string
		vocab map[string]string
	}{{"muscle", muscleSlugs}, {"equipment", equipmentSlugs}} {
		s, ok := req.String(f.field)
		if !ok {
			continue
		}
		if _, known := f.vocab[normalize(s)]; !known {
			vs = append(vs, providers.Violation{Path: "/" + f.field,
				Message: fmt.Sprintf("%s %q is not one the provider knows; use one of: %s", f.field, s, accepted(f.vocab))})
		}
	}
	return vs
}

// pagingState is the opaque paging state. Exercisevideo sessions hold the next YMove page; legacy
// text-only sessions hold source "wger", the wger query they were made with and the next offset.
type pagingState struct {
	Source string            `json:"source,omitempty"`
	Page   int               `json:"page,omitempty"`
	Offset int               `json:"offset,omitempty"`
	Params map[string]string `json:"params,omitempty"`
}

// WorkoutSaver saves a demonstration to a tenant's workouts area and returns its id (wkt_…);
// saving the same exercise twice returns the same workout. The deployment provides it (the
// tenants store, registry.TenantWorkouts) through Exercises.Bind or NewExercises.
type WorkoutSaver interface {
	SaveWorkout(ctx context.Context, tenantID string, w Workout) (string, error)
}

// Workout is a demonstration to save.
type Workout struct {
	Title          string
	Provider       string
	ExerciseRef    string
	Muscles        []string
	Equipment      []string
	VideoAvailable bool
}

// Exercises binds to the deployment's WorkoutSaver (providers.Capability.Bind; set here, not in
// the declaration, because NewExercises copies Exercises).
func init() {
	Exercises.Bind = func(deps providers.Deps) *providers.Capability {
		if saver, ok := providers.Need[WorkoutSaver](deps); ok {
			return NewExercises(saver)
		}
		return nil
	}
}

// NewExercises is fitness.exercises bound to the store that saves its demonstrations; the
// package's Exercises (catalog, inspect, validation) has none, so it cannot fetch video pages.
func NewExercises(saver WorkoutSaver) *providers.Capability {
	c := *Exercises
	c.Execute = func(ctx context.Context, call *providers.Call) (*providers.Page, error) {
		return execute(ctx, call, saver)
	}
	return &c
}

func execute(ctx context.Context, call *providers.Call, saver WorkoutSaver) (*providers.Page, error) {
	st := pagingState{Page: 1}
	if len(call.State) > 0 {
		if err := json.Unmarshal(call.State, &st); err != nil {
			return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
		}
	}
	if st.Source == WgerProviderID {
		return legacyPage(ctx, call, st)
	}
	if st.Source != "" || st.Page < 1 {
		return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
	}
	if saver == nil {
		return nil, providers.Errorf(providers.CodeInternal, "fitness.exercises needs the workouts store to save demonstrations")
	}
	return videoPage(ctx, call, saver, st.Page)
}

// searchParams builds YMove's /exercises query for a request and page. Browse mode
// (excludeVideos) keeps signed video URLs, and the provider's per-exercise monthly cap, out of
// searches: the console fetches a URL only when someone plays the demonstration.
func searchParams(req providers.Request, page int) url.Values {
	q := url.Values{}
	if s := strings.TrimSpace(req.Str("query")); s != "" {
		q.Set("search", s)
	}
	if s, ok := req.String("muscle"); ok {
		q.Set("muscleGroup", muscleSlugs[normalize(s)])
	}
	if s, ok := req.String("equipment"); ok {
		q.Set("equipment", equipmentSlugs[normalize(s)])
	}
	num, ok := req.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	q.Set("page", strconv.Itoa(page))
	q.Set("pageSize", strconv.Itoa(num))
	q.Set("excludeVideos", "true")
	return q
}

// ymoveExercise is one exercise as YMove answers it; video fields come only from a lookup.
type ymoveExercise struct {
	ID                string       `json:"id"`
	Title             string       `json:"title"`
	Slug              string       `json:"slug"`
	Description       *string      `json:"description"`
	Instructions      []string     `json:"instructions"`
	ImportantPoints   []string     `json:"importantPoints"`
	MuscleGroup       string       `json:"muscleGroup"`
	SecondaryMuscles  []string     `json:"secondaryMuscles"`
	Equipment         string       `json:"equipment"`
	Category          *string      `json:"category"`
	Difficulty        *string      `json:"difficulty"`
	ExerciseType      []string     `json:"exerciseType"`
	HasVideo          bool         `json:"hasVideo"`
	VideoURL          *string      `json:"videoUrl"`
	VideoHLSURL       *string      `json:"videoHlsUrl"`
	VideoDurationSecs *float64     `json:"videoDurationSecs"`
	Videos            []ymoveVideo `json:"videos"`
}

type ymoveVideo struct {
	ID        string  `json:"id"`
	VideoURL  *string `json:"videoUrl"`
	Tag       string  `json:"tag"`
	IsPrimary bool    `json:"isPrimary"`
}

type ymoveList struct {
	Data       []json.RawMessage `json:"data"`
	Pagination struct {
		Page       int `json:"page"`
		PageSize   int `json:"pageSize"`
		Total      int `json:"total"`
		TotalPages int `json:"totalPages"`
	} `json:"pagination"`
}

func videoPage(ctx context.Context, call *providers.Call, saver WorkoutSaver, page int) (*providers.Page, error) {
	var body ymoveList
	if err := getJSON(ctx, call.Upstream(VideoProviderID), "/exercises", searchParams(call.Request, page), &body); err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{}}
	for _, raw := range body.Data {
		var ex ymoveExercise
		if json.Unmarshal(raw, &ex) != nil {
			continue // an entry of an unexpected shape is skipped, not fatal
		}
		rec, ok, err := videoRecord(ctx, call, saver, &ex)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Records = append(out.Records, rec)
		}
	}
	// totalPages bounds paging; an empty page always ends it (a page past the end comes back empty).
	if len(body.Data) > 0 && page < body.Pagination.TotalPages {
		out.HasMore = true
		out.Next, _ = json.Marshal(pagingState{Page: page + 1})
	}
	return out, nil
}

// videoRecord maps one exercise and, when it has a demonstration, saves it as a workout of the
// calling tenant. ok is false for an entry without an id or a title.
func videoRecord(ctx context.Context, call *providers.Call, saver WorkoutSaver, ex *ymoveExercise) (providers.Record, bool, error) {
	title, id := strings.TrimSpace(ex.Title), strings.TrimSpace(ex.ID)
	if title == "" || id == "" {
		return providers.Record{}, false, nil
	}
	data := &ExerciseRecord{Attribution: videoAttribution, VideoAvailable: ex.HasVideo}
	rec := providers.Record{Title: title, Data: data}
	if ex.Description != nil {
		rec.Snippet = strings.TrimSpace(*ex.Description)
	}
	muscles := muscleNames(ex)
	equipment := nonEmpty(ex.Equipment)
	data.Muscles, data.Equipment = muscles, equipment
	detail := exerciseDetail(ex)
	links := []providers.Link{}
	if ex.HasVideo {
		wid, err := saver.SaveWorkout(ctx, call.Tenant, Workout{Title: title, Provider: VideoProviderID,
			ExerciseRef: ExerciseRef(call.Mode, id), Muscles: muscles, Equipment: equipment, VideoAvailable: true})
		if err != nil {
			return providers.Record{}, false, &providers.Error{Code: providers.CodeInternal,
				Message: "the demonstration could not be saved to your workouts", Cause: err}
		}
		link := strings.TrimRight(call.PublicURL, "/") + workoutsPath + wid
		data.WorkoutResource = &WorkoutResource{ID: wid, URL: link, Title: title, VideoAvailable: true}
		detail.WorkoutID, detail.WorkoutURL = wid, link
		links = append(links, providers.Link{Label: "Demonstration video (sign in to the console)", URL: link})
	} else {
		data.VideoUnavailableReason = noVideoReason
		detail.VideoUnavailableReason = noVideoReason
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail, Links: links}}
	return rec, true, nil
}

// muscleNames is the primary muscle group followed by the secondary muscles, without repeats.
func muscleNames(ex *ymoveExercise) []string {
	return nonEmpty(append([]string{ex.MuscleGroup}, ex.SecondaryMuscles...)...)
}

// exerciseDetail is the stored details body; absent values are left out.
func exerciseDetail(ex *ymoveExercise) *VideoDetail {
	str := func(v *string) string {
		if v == nil {
			return ""
		}
		return strings.TrimSpace(*v)
	}
	return &VideoDetail{ExerciseID: ex.ID, Title: strings.TrimSpace(ex.Title), VideoAvailable: ex.HasVideo,
		Attribution: videoAttribution, Description: str(ex.Description), Instructions: nonEmpty(ex.Instructions...),
		ImportantPoints: nonEmpty(ex.ImportantPoints...), MuscleGroup: str(&ex.MuscleGroup),
		SecondaryMuscles: nonEmpty(ex.SecondaryMuscles...), Equipment: str(&ex.Equipment), Category: str(ex.Category),
		Difficulty: str(ex.Difficulty), ExerciseTypes: nonEmpty(ex.ExerciseType...)}
}

// nonEmpty trims the values and drops blanks and repeats.
func nonEmpty(vs ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		v = strings.TrimSpace(v)
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// ymoveError is YMove's error body: {"error": {"code", "message"}} (some answers put a plain
// string in error, or a message at the top level).
type ymoveError struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

// errorDetail reads code and message from an upstream error body.
func errorDetail(body []byte) (code, message string) {
	var e ymoveError
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	var obj struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil && (obj.Code != "" || obj.Message != "") {
		return obj.Code, obj.Message
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return "", s
	}
	return "", e.Message
}

// getJSON calls an upstream and maps YMove's documented error answers: a refused key is the
// deployment's problem (provider_error, not the caller's), an invalid parameter the caller's.
func getJSON(ctx context.Context, u *providers.Upstream, path string, q url.Values, out any) error {
	err := u.GetJSON(ctx, path, q, out)
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	code, msg := errorDetail(e.Body)
	switch {
	case e.UpstreamStatus == 400 || code == "INVALID_PARAMETER":
		if msg == "" {
			msg = "the provider refused the search parameters"
		}
		return providers.InvalidField("", "the exercise provider refused the search: "+msg)
	case e.UpstreamStatus == 401 || e.UpstreamStatus == 403 || code == "INVALID_API_KEY":
		return (&providers.Error{Code: providers.CodeProviderError, Message: fmt.Sprintf("%s refused this gateway's API key", u.ID()),
			UpstreamStatus: e.UpstreamStatus, Cause: err}).WithRetryable(false)
	}
	if msg != "" && e.Code == providers.CodeProviderError {
		e.Message += ": " + msg
	}
	return e
}
