package registry

import (
	"context"
	"encoding/json"

	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/tenants"
)

// WorkoutStore is what saving a fitness.exercises demonstration needs of the accounts store.
type WorkoutStore interface {
	SaveWorkout(ctx context.Context, w *tenants.Workout) (*tenants.Workout, error)
}

// TenantWorkouts saves fitness.exercises demonstrations in the tenants store: the
// fitness.WorkoutSaver cmd hands CapabilitiesWith. It sits here, with the list that binds the
// deployment to the capabilities, so that neither the gateway nor the capability package knows
// the other's types.
func TenantWorkouts(store WorkoutStore) fitness.WorkoutSaver { return workoutSaver{store: store} }

type workoutSaver struct{ store WorkoutStore }

func (w workoutSaver) SaveWorkout(ctx context.Context, tenantID string, in fitness.Workout) (string, error) {
	muscles, _ := json.Marshal(orEmpty(in.Muscles))
	equipment, _ := json.Marshal(orEmpty(in.Equipment))
	saved, err := w.store.SaveWorkout(ctx, &tenants.Workout{TenantID: tenantID, Title: in.Title, Provider: in.Provider,
		ExerciseRef: in.ExerciseRef, Muscles: string(muscles), Equipment: string(equipment), VideoAvailable: in.VideoAvailable})
	if err != nil {
		return "", err
	}
	return saved.ID, nil
}

// orEmpty makes a nil list encode as [] (the column holds a JSON array).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
