package fitness

import (
	"embed"
	"io/fs"
	"net/http"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids (PROVIDER_EXERCISEVIDEO_URL / _KEY, PROVIDER_WGER_URL).
const (
	// VideoProviderID is the YMove Exercise Video API: exercise search with demonstration videos.
	VideoProviderID = "exercisevideo"
	// WgerProviderID is wger's public REST API, read for legacy text-only sessions.
	WgerProviderID = "wger"
)

const (
	videoBaseURL = "https://exercise-api.ymove.app/api/v2"
	wgerBaseURL  = "https://wger.de"
)

//go:embed sandbox/*.json
var sandboxFiles embed.FS

// Providers lists the upstream providers of this package.
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:          VideoProviderID,
			Title:       "YMove Exercise Video API",
			Cache:       providers.CacheRule{MaxAge: 0, Rule: "never shared: signed video URLs expire (48 h, third-party material) and answers are saved to the caller's account", Source: "third-party source (signed URL lifetime); fitness.exercises is personal"},
			BaseURL:     videoBaseURL,
			KeyRequired: true,
			SignUp:      "https://ymove.app/",
			// YMove takes the key as the X-API-Key header (or an api_key query parameter, which
			// would leak into logs; the header is used).
			Authorize: func(r *http.Request, key string) { r.Header.Set("X-API-Key", key) },
			Sandbox:   videoSandbox(),
		},
		{
			ID:      WgerProviderID,
			Title:   "wger Workout Manager",
			Cache:   providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "CC BY-SA exercise data; a day", Source: "wger licence (not re-read this session)"},
			BaseURL: wgerBaseURL,
			// The exercise database is public: no key.
			Sandbox: wgerSandbox(),
		},
	}
}

// sandboxExercises are the YMove exercise ids (UUIDs) the sandbox can look up, each with its
// detail fixture exercise_<id>.json: the exercises of the list fixtures that have a video. Any
// other id answers YMove's 404 error body.
var sandboxExercises = []string{
	"5f1c2a3b-8d4e-4f6a-9b7c-1e2d3c4b5a61", // Barbell Bench Press
	"a2b3c4d5-6e7f-4a8b-9c0d-1e2f3a4b5c62", // Dumbbell Incline Press
	"c3d4e5f6-7a8b-4c9d-8e0f-2a3b4c5d6e73", // Push-Up
	"e5f6a7b8-9c0d-4e1f-8a2b-3c4d5e6f7a85", // Goblet Squat
}

func subFS() fs.FS {
	sub, err := fs.Sub(sandboxFiles, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// videoSandbox answers YMove's list and detail endpoints. Fixed data: page 2 of any search is the
// last page fixture, a search for "zzz" the empty answer, any other search the first page.
func videoSandbox() http.Handler {
	q := func(param, value string) func(r *http.Request) bool {
		return func(r *http.Request) bool { return r.URL.Query().Get(param) == value }
	}
	routes := []providers.SandboxRoute{
		{Path: "/api/v2/exercises", Match: q("search", "zzz"), File: "exercises_empty.json"},
		{Path: "/api/v2/exercises", Match: q("page", "2"), File: "exercises_page2.json"},
		{Path: "/api/v2/exercises", File: "exercises_page1.json"},
	}
	for _, id := range sandboxExercises {
		routes = append(routes, providers.SandboxRoute{Path: "/api/v2/exercises/" + id, File: "exercise_" + id + ".json"})
	}
	routes = append(routes, providers.SandboxRoute{Path: "/api/v2/exercises/*", File: "exercise_not_found.json", Status: http.StatusNotFound})
	return providers.SandboxHandler(subFS(), routes...)
}

// wgerSandbox answers wger's exerciseinfo list (legacy text-only sessions).
func wgerSandbox() http.Handler {
	return providers.SandboxHandler(subFS(), providers.SandboxRoute{Path: "/api/v2/exerciseinfo/", File: "wger_exerciseinfo.json"})
}
