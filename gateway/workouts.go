package gateway

import (
	"context"
	"encoding/json"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// workoutSaver lets fitness.exercises save demonstrations to the calling tenant.
type workoutSaver struct {
	store interface {
		SaveWorkout(ctx context.Context, w *tenants.Workout) (*tenants.Workout, error)
	}
}

var _ providers.Workouts = workoutSaver{}

func (w workoutSaver) SaveWorkout(ctx context.Context, tenantID string, in providers.Workout) (string, error) {
	muscles, _ := json.Marshal(orEmpty(in.Muscles))
	equipment, _ := json.Marshal(orEmpty(in.Equipment))
	saved, err := w.store.SaveWorkout(ctx, &tenants.Workout{TenantID: tenantID, Title: in.Title, Provider: in.Provider,
		ExerciseRef: in.ExerciseRef, Muscles: string(muscles), Equipment: string(equipment), VideoAvailable: in.VideoAvailable})
	if err != nil {
		return "", err
	}
	return saved.ID, nil
}

// newCall binds an adapter call to the caller and the gateway's services.
func (s *Server) newCall(cp *providers.Capability, req providers.Request, state json.RawMessage, p *Principal) *providers.Call {
	call := providers.NewCall(cp, req, state, p.Mode(), p.Tenant.ID, s.opts.Client)
	call.Workouts = workoutSaver{store: s.store}
	call.PublicURL = s.opts.PublicURL
	return call
}
