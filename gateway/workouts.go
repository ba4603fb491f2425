package gateway

import (
	"context"
	"encoding/json"

	"github.com/capgate/capgate/providers/fitness"
	"github.com/capgate/capgate/tenants"
)

// workoutStore is what saving a demonstration needs of the accounts store.
type workoutStore interface {
	SaveWorkout(ctx context.Context, w *tenants.Workout) (*tenants.Workout, error)
}

// TenantWorkouts saves fitness.exercises demonstrations in the tenants store: the
// fitness.WorkoutSaver that cmd binds the capability to (registry.CapabilitiesWith).
func TenantWorkouts(store workoutStore) fitness.WorkoutSaver { return workoutSaver{store: store} }

type workoutSaver struct{ store workoutStore }

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
