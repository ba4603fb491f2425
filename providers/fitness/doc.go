// Package fitness adapts the YMove Exercise Video API (provider `exercisevideo`,
// PROVIDER_EXERCISEVIDEO_URL / PROVIDER_EXERCISEVIDEO_KEY, key sent as the X-API-Key header) and
// wger's public REST API (provider `wger`, no key) to fitness.exercises (spec section 4.26): page
// paging, deadline 45 s, 10 credits per search, more or update (empty pages included, no plan
// multiplier), record action details (stored at search time, free). It also holds the Player that
// renews and caches demonstration video URLs for the console's workout playback.
//
// # Why YMove
//
// The options looked at: ExerciseDB (RapidAPI and its v1 at exercisedb.dev: GIF animations; on
// RapidAPI the GIF endpoint needs the key in the URL, so it cannot be handed to a browser),
// exerciseapi.dev (search by q/category, but most exercises have no clip yet), MuscleWiki through
// RapidAPI (no official reference found), and YMove. YMove's OpenAPI document
// (https://exercise-api.ymove.app/api/v2/openapi.json) shows search by name (search), muscle
// (muscleGroup) and equipment, page paging, a demonstration video for most exercises, and that
// "video URLs are pre-signed and expire after 48 hours": exactly the renewal model the spec
// describes.
//
// # Upstream endpoints
//
//   - GET {base}/exercises?search=&muscleGroup=&equipment=&page=&pageSize=&excludeVideos=true
//     → {data: [Exercise], pagination: {page, pageSize, total, totalPages}, _notice: {reason:
//     "browse_mode"}}. Exercise: {id (UUID), title, slug, description, instructions[],
//     importantPoints[], muscleGroup, secondaryMuscles[], equipment, category, difficulty,
//     exerciseType[], hasVideo, hasVideoWhite, hasVideoGym} and, outside browse mode, videoUrl,
//     videoHlsUrl, thumbnailUrl, thumbnails, videoDurationSecs and videos[{id, videoUrl,
//     videoHlsUrl, thumbnailUrl, thumbnails, tag, orientation, isPrimary}].
//   - GET {base}/exercises/{id} → {data: Exercise} with the signed video URLs (videos are
//     included by default on this endpoint). Used only by the Player, when someone plays.
//   - Errors: {error: {code, message}} with INVALID_API_KEY (401), NOT_FOUND (404),
//     INVALID_PARAMETER (400), RATE_LIMITED (429), INTERNAL_ERROR (5xx).
//   - wger GET {base}/api/v2/exerciseinfo/?name__search=&muscles=&equipment=&category=
//     &language__code=en&limit=&offset= → {count, next, previous, results: [ExerciseInfo{id, uuid,
//     category{id, name}, muscles[Muscle{id, name, name_en, is_front, image_url_main,
//     image_url_secondary}], muscles_secondary[], equipment[{id, name}], license{id, full_name,
//     short_name, url}, license_author, images[], translations[{id, uuid, name, exercise,
//     description (HTML), language, license_author, ...}], videos[], ...}]} (wger's OpenAPI,
//     version 2.7).
//
// # Decisions where the spec is silent
//
//   - Body: query, muscle and equipment are optional but at least one is required (a rule beyond
//     the schema, violation at ""): an empty search would list the whole catalog at 10 credits a
//     page. Each is 1..120 characters and not blank ("pattern": "\\S"). muscle and equipment are
//     matched case-, hyphen- and underscore-insensitively against YMove's vocabularies (the SDK's
//     MuscleGroupSlug and EquipmentSlug lists) plus common names (abs → core, quadriceps → quads,
//     lats → back, delts → shoulders, body weight / none → bodyweight, plurals); anything else is
//     refused at /muscle or /equipment with the accepted values, rather than charged and refused
//     upstream. num 1..20 (default 10) is YMove's pageSize (its maximum is 50).
//   - Searches run in YMove's browse mode (excludeVideos=true): no signed URLs, and the
//     exercises do not count against the provider's monthly per-exercise cap. hasVideo gives
//     video_available. The signed URL is fetched when someone plays the demonstration.
//   - Paging: state {"page": N}; has_more while the page was not empty and N < totalPages.
//   - Records: title; snippet = description; attribution (always); video_available (always);
//     muscles = muscleGroup then secondaryMuscles, trimmed, without repeats; equipment = [equipment];
//     an exercise with hasVideo is saved with the bound WorkoutSaver (NewExercises; provider "exercisevideo",
//     ExerciseRef = the YMove id, "test:<id>" for test keys, so sandbox workouts are always renewed
//     from the sandbox) and carries workout_resource {id, url = PublicURL + /console/workouts/<id>,
//     title, video_available: true}; one without carries video_unavailable_reason. Entries without
//     an id or a title are dropped. No record url (YMove has no public exercise page). Saving a
//     workout that fails fails the search (internal_error, refunded): workout_resource is promised.
//   - details (stored): exercise_id, title, description, instructions, important_points,
//     muscle_group, secondary_muscles, equipment, category, difficulty, exercise_types,
//     video_available, video_unavailable_reason or workout_id and workout_url, attribution; link:
//     the workout page.
//   - Errors: YMove 400 / INVALID_PARAMETER → invalid_request; 401/403 / INVALID_API_KEY →
//     provider_error, not retryable (the deployment's key); 429 → rate_limited or
//     provider_allowance (the client's Retry-After rule); 5xx → provider_error.
//   - Legacy text-only sessions: a paging state {"source": "wger", "offset": N, "params": {wger
//     exerciseinfo filters}} continues on wger with text-only records (video_available false,
//     video_unavailable_reason, attribution, muscles, secondary_muscles, equipment, author =
//     translation's else exercise's license_author, licence {name, short_name, url}) and a note;
//     only the filters name__search, muscles(__in), equipment(__in), category and language__code
//     are replayed (English by default). New searches, and update (which restarts paging), always
//     use YMove. Same 10-credit charge.
//
// # Playback (Player)
//
// Player.VideoURL(provider, exerciseRef, videoAvailable) answers the URL to redirect a signed-in
// viewer to. URLs are cached in-process across tenants, keyed by mode and YMove id, bounded to
// DefaultCacheEntries (expired entries first, then those expiring soonest are evicted), served
// for at most 24 hours and never later than 5 minutes before the URL's expiry: a signed URL's
// `expires` (Unix seconds; Bunny CDN tokens), `Expires` (CloudFront canned, S3 v2), X-Amz-Date +
// X-Amz-Expires (S3 v4), X-Goog-Date + X-Goog-Expires (Cloud Storage v4), an Azure SAS `se` (with
// its `sig`) or a CloudFront custom `Policy`'s DateLessThan, else 48 hours after the lookup
// (YMove's documented life). Saved workouts store only the exercise reference, never a link, so
// every play goes through this renewal and a link past its expiry is never handed out. An expired entry is renewed by a lookup
// (free to the caller; one lookup per exercise at a time). A workout saved without a
// demonstration, a provider 404 / NOT_FOUND or an exercise without a video URL any more is
// workout_unavailable (404); any other renewal failure, an unconfigured provider, or a URL that
// is already expired is media_stale (409; not retryable when the provider is not configured).
// The video picked is the primary MP4 (videoUrl), else the first MP4, else the exercise's
// videoUrl: HLS needs a player library and the console works without JavaScript.
//
// # Sandbox
//
// Test keys get the list fixtures (page 1 of 2 for any search, page 2 for page=2, no results for
// "zzz") and per-exercise detail fixtures whose video URLs point at
// https://exercisevideo.sandbox.invalid/…: a data-free placeholder whose host says sandbox and
// never resolves, so no sandbox call ever reaches a real CDN. The console's player
// (PlayerOptions.SandboxVideo) still renews a test workout through that sandbox lookup, then plays
// the gateway's own three-second demo file (web/static/sandbox/exercise-demo.webm), so a sandbox
// workout page really plays. wger's sandbox answers one exerciseinfo page.
//
// # Not confirmed from an official page
//
// YMove's OpenAPI document could only be read in part; the parameter names, the browse-mode
// switch (excludeVideos / includeVideos), pageSize's maximum of 50, the error envelope and codes
// and the answer shapes are taken from YMove's own TypeScript SDK and from public client code.
// The form of the signed URLs (where the expiry sits) and the exact _notice object are not
// documented: the adapter reads the expiry if present and falls back to 48 hours. How the list
// answers a page past the end is unconfirmed (an empty page ends paging). wger's shapes follow its
// OpenAPI 2.7 document; fixture contents beyond the documented examples are illustrative.
package fitness
