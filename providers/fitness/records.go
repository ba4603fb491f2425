package fitness

// ExerciseRecord is a fitness.exercises record (besides title and snippet), from either provider.
type ExerciseRecord struct {
	Attribution            string           `json:"attribution"`
	Author                 string           `json:"author,omitempty" doc:"wger entries"`
	Equipment              []string         `json:"equipment,omitempty"`
	Licence                *Licence         `json:"licence,omitempty" doc:"wger entries"`
	Muscles                []string         `json:"muscles,omitempty"`
	SecondaryMuscles       []string         `json:"secondary_muscles,omitempty" doc:"wger entries"`
	VideoAvailable         bool             `json:"video_available"`
	VideoUnavailableReason string           `json:"video_unavailable_reason,omitempty"`
	WorkoutResource        *WorkoutResource `json:"workout_resource,omitempty" doc:"the saved demonstration, when there is a video"`
}

// Licence is the licence of a wger entry (fields in key order: details bodies repeat it).
type Licence struct {
	Name      string `json:"name,omitempty"`
	ShortName string `json:"short_name,omitempty"`
	URL       string `json:"url,omitempty"`
}

// WorkoutResource is the demonstration saved to the caller's workouts.
type WorkoutResource struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	URL            string `json:"url"`
	VideoAvailable bool   `json:"video_available"`
}

// The details bodies are written by encoding/json, which keeps the declared order: fields are
// declared in key order.

// VideoDetail is the stored details body of a video provider exercise.
type VideoDetail struct {
	Attribution            string   `json:"attribution"`
	Category               string   `json:"category,omitempty"`
	Description            string   `json:"description,omitempty"`
	Difficulty             string   `json:"difficulty,omitempty"`
	Equipment              string   `json:"equipment,omitempty"`
	ExerciseID             string   `json:"exercise_id"`
	ExerciseTypes          []string `json:"exercise_types,omitempty"`
	ImportantPoints        []string `json:"important_points,omitempty"`
	Instructions           []string `json:"instructions,omitempty"`
	MuscleGroup            string   `json:"muscle_group,omitempty"`
	SecondaryMuscles       []string `json:"secondary_muscles,omitempty"`
	Title                  string   `json:"title"`
	VideoAvailable         bool     `json:"video_available"`
	VideoUnavailableReason string   `json:"video_unavailable_reason,omitempty"`
	WorkoutID              string   `json:"workout_id,omitempty"`
	WorkoutURL             string   `json:"workout_url,omitempty"`
}

// LegacyDetail is the stored details body of a wger exercise.
type LegacyDetail struct {
	Attribution            string   `json:"attribution"`
	Author                 string   `json:"author,omitempty"`
	Category               string   `json:"category,omitempty"`
	Description            string   `json:"description,omitempty"`
	Equipment              []string `json:"equipment,omitempty"`
	ExerciseID             int      `json:"exercise_id"`
	Licence                *Licence `json:"licence,omitempty"`
	Muscles                []string `json:"muscles,omitempty"`
	SecondaryMuscles       []string `json:"secondary_muscles,omitempty"`
	Title                  string   `json:"title"`
	VideoAvailable         bool     `json:"video_available"`
	VideoUnavailableReason string   `json:"video_unavailable_reason"`
}
