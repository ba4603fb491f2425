package fitness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

// TestSandboxExamples runs what the gateway runs for test keys: every example, the details action
// on the first record, the next page with the returned state, and playback of a saved workout.
func TestSandboxExamples(t *testing.T) {
	client := providers.NewClient(Providers(), providers.ClientOptions{Version: "test", Contact: "tests@example.com"})
	player := NewPlayer(client, PlayerOptions{})
	for _, ex := range Exercises.Examples {
		t.Run(ex.Title, func(t *testing.T) {
			b, _ := json.Marshal(ex.Body)
			req, err := providertest.Prepare(t, Exercises, string(b))
			if err != nil {
				t.Fatalf("example does not validate: %v", err)
			}
			ws := newWorkouts()
			page, err := runReq(t, client, providers.ModeTest, "tnt_test", ws, req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 || !page.HasMore {
				t.Fatalf("records %d more %v", len(page.Records), page.HasMore)
			}
			first := page.Records[0]
			for _, a := range Exercises.Actions {
				d, err := providertest.Action(t, client, Exercises, providers.ModeTest, req, a.Name, &first)
				if err != nil || d.Body == nil || d.Links == nil {
					t.Fatalf("%s on %q: %v", a.Name, first.Title, err)
				}
			}
			wr := first.Data.(*ExerciseRecord).WorkoutResource
			if wr == nil {
				t.Fatalf("first sandbox record has no workout_resource: %+v", first.Data)
			}
			w := ws.saved[wr.ID]
			link, err := player.VideoURL(context.Background(), w.Provider, w.ExerciseRef, w.VideoAvailable)
			if err != nil || link == "" {
				t.Fatalf("sandbox playback: %q %v", link, err)
			}
			next, err := runReq(t, client, providers.ModeTest, "tnt_test", ws, req, page.Next)
			if err != nil || len(next.Records) == 0 || next.HasMore {
				t.Fatalf("next sandbox page: %v %+v", err, next)
			}
		})
	}
	t.Run("golden", func(t *testing.T) {
		page, err := run(t, client, providers.ModeTest, "tnt_test", newWorkouts(), `{"muscle":"chest","equipment":"dumbbell","num":5}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Golden(t, "sandbox_chest", providertest.RecordsJSON(page))
	})
	t.Run("empty", func(t *testing.T) {
		page, err := run(t, client, providers.ModeTest, "tnt_test", newWorkouts(), `{"query":"zzz"}`, nil)
		if err != nil || len(page.Records) != 0 || page.HasMore {
			t.Fatalf("%v %+v", err, page)
		}
	})
	t.Run("legacy session", func(t *testing.T) {
		req, _ := providertest.Prepare(t, Exercises, `{"query":"press"}`)
		page, err := runReq(t, client, providers.ModeTest, "tnt_test", newWorkouts(), req, json.RawMessage(`{"source":"wger","offset":0,"params":{"name__search":"press"}}`))
		if err != nil || len(page.Records) != 2 || page.HasMore {
			t.Fatalf("%v %+v", err, page)
		}
		if _, err := providertest.Action(t, client, Exercises, providers.ModeTest, req, "details", &page.Records[0]); err != nil {
			t.Fatal(err)
		}
	})
}
