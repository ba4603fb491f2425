package fitness

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
)

const (
	benchID = "5f1c2a3b-8d4e-4f6a-9b7c-1e2d3c4b5a61"
	// benchURL is the primary video of testdata/exercise.json; its token expires at 1790006400.
	benchURL = "https://vz-3c9a1f2b-7d4.b-cdn.net/videos/barbell-bench-press/play_720p.mp4?token=Yk3vQm9xT0FzR2h1TnBwZ0l4&expires=1790006400"
)

var benchExpiry = time.Unix(1790006400, 0)

// player binds a Player to a YMove fake answering the bench press lookup with the fixture body.
func player(t *testing.T, c *clock, fixture string, status int) (*Player, *fake) {
	t.Helper()
	f := newFake(t, true)
	f.serve("/exercises/"+benchID, status, fixture)
	return NewPlayer(clients(t, f, nil), PlayerOptions{Now: c.Now}), f
}

func play(t *testing.T, p *Player, ref string) (string, error) {
	t.Helper()
	return p.VideoURL(context.Background(), VideoProviderID, ref, true)
}

func TestPlayerCachesAcrossTenantsWithin24h(t *testing.T) {
	c := &clock{now: benchExpiry.Add(-40 * time.Hour)} // the URL is good for 40 hours more
	p, f := player(t, c, "exercise.json", 200)
	for i := 0; i < 3; i++ { // three viewers (any tenants): one lookup
		got, err := play(t, p, benchID)
		if err != nil || got != benchURL {
			t.Fatalf("play %d: %q %v", i, got, err)
		}
		c.advance(time.Hour)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
	if r := f.Requests()[0]; r.URL.Path != "/exercises/"+benchID || r.URL.RawQuery != "" {
		t.Errorf("lookup %s?%s", r.URL.Path, r.URL.RawQuery)
	}
	// 24 hours after the lookup the entry is renewed (a free lookup), though the URL has not expired.
	c.advance(21*time.Hour - time.Second)
	if _, err := play(t, p, benchID); err != nil || len(f.Requests()) != 1 {
		t.Fatalf("before 24 h: %v, %d lookups", err, len(f.Requests()))
	}
	c.advance(time.Second)
	if _, err := play(t, p, benchID); err != nil || len(f.Requests()) != 2 {
		t.Fatalf("at 24 h: %v, %d lookups, want a renewal", err, len(f.Requests()))
	}
}

func TestPlayerNeverServesPastProviderExpiry(t *testing.T) {
	c := &clock{now: benchExpiry.Add(-2 * time.Hour)} // the signed URL expires in 2 hours
	p, f := player(t, c, "exercise.json", 200)
	if _, err := play(t, p, benchID); err != nil {
		t.Fatal(err)
	}
	c.advance(2*time.Hour - expiryMargin - time.Second)
	if _, err := play(t, p, benchID); err != nil || len(f.Requests()) != 1 {
		t.Fatalf("before expiry: %v, %d lookups", err, len(f.Requests()))
	}
	// At the expiry margin the entry is gone; the provider answers the same, now stale, URL.
	c.advance(time.Second)
	_, err := play(t, p, benchID)
	if providertest.ErrorCode(err) != providers.CodeMediaStale || len(f.Requests()) != 2 {
		t.Fatalf("expired: %v, %d lookups", err, len(f.Requests()))
	}
	if e, _ := providers.AsError(err); e.HTTPStatus() != 409 || !e.IsRetryable() {
		t.Errorf("media_stale status %d retryable %v", e.HTTPStatus(), e.IsRetryable())
	}
}

func TestPlayerRenewalFailureIsMediaStale(t *testing.T) {
	c := &clock{now: benchExpiry.Add(-40 * time.Hour)}
	p, f := player(t, c, "exercise.json", 200)
	if _, err := play(t, p, benchID); err != nil {
		t.Fatal(err)
	}
	f.serve("/exercises/"+benchID, 503, `{"error":{"code":"INTERNAL_ERROR","message":"Upstream CDN signing failed"}}`)
	c.advance(MaxCacheAge)
	_, err := play(t, p, benchID)
	if providertest.ErrorCode(err) != providers.CodeMediaStale {
		t.Fatalf("err = %v, want media_stale", err)
	}
	if p.cached() != 0 {
		t.Errorf("the expired entry is still cached")
	}
	// Renewal works again once the provider does.
	f.serve("/exercises/"+benchID, 200, "exercise.json")
	if got, err := play(t, p, benchID); err != nil || got != benchURL {
		t.Fatalf("after recovery: %q %v", got, err)
	}
}

func TestPlayerWorkoutUnavailable(t *testing.T) {
	c := &clock{now: benchExpiry.Add(-40 * time.Hour)}
	cases := []struct {
		name, fixture string
		status        int
		provider, ref string
		available     bool
	}{
		{"saved without a demonstration", "exercise.json", 200, VideoProviderID, benchID, false},
		{"another provider", "exercise.json", 200, WgerProviderID, benchID, true},
		{"empty ref", "exercise.json", 200, VideoProviderID, "", true},
		{"provider 404", "not_found.json", 404, VideoProviderID, benchID, true},
		{"no video any more", "exercise_novideo.json", 200, VideoProviderID, benchID, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := player(t, c, tc.fixture, tc.status)
			_, err := p.VideoURL(context.Background(), tc.provider, tc.ref, tc.available)
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeWorkoutUnavailable || e.HTTPStatus() != 404 {
				t.Fatalf("err = %v, want workout_unavailable", err)
			}
		})
	}
}

func TestPlayerUnconfiguredProvider(t *testing.T) {
	client := providers.NewClient(Providers(), providers.ClientOptions{Version: "test"}) // no key
	_, err := NewPlayer(client, PlayerOptions{}).VideoURL(context.Background(), VideoProviderID, benchID, true)
	if e, ok := providers.AsError(err); !ok || e.Code != providers.CodeMediaStale || e.IsRetryable() {
		t.Fatalf("err = %v, want media_stale, not retryable", err)
	}
	// A gateway without the provider built in answers the same, without panicking.
	bare := providers.NewClient(nil, providers.ClientOptions{Version: "test"})
	if _, err := NewPlayer(bare, PlayerOptions{}).VideoURL(context.Background(), VideoProviderID, benchID, true); providertest.ErrorCode(err) != providers.CodeMediaStale {
		t.Fatalf("err = %v", err)
	}
}

func TestPlayerSandboxRef(t *testing.T) {
	// A test key's workout renews from the sandbox even though live is configured elsewhere.
	f := newFake(t, true)
	p := NewPlayer(clients(t, f, nil), PlayerOptions{})
	got, err := play(t, p, ExerciseRef(providers.ModeTest, benchID))
	if err != nil || got != "https://exercisevideo.sandbox.invalid/videos/barbell-bench-press/play_720p.mp4" {
		t.Fatalf("sandbox play: %q %v", got, err)
	}
	if len(f.Requests()) != 0 {
		t.Errorf("a sandbox workout reached the live provider")
	}
	if _, err := play(t, p, ExerciseRef(providers.ModeTest, "00000000-0000-4000-8000-000000000000")); providertest.ErrorCode(err) != providers.CodeWorkoutUnavailable {
		t.Errorf("unknown sandbox exercise: %v", err)
	}
}

func TestPlayerSandboxVideo(t *testing.T) {
	// With SandboxVideo set, a test key's demonstration still renews through the sandbox lookup
	// (unknown exercises stay unavailable) but plays the gateway's own demo file.
	f := newFake(t, true)
	p := NewPlayer(clients(t, f, nil), PlayerOptions{SandboxVideo: "/console/static/sandbox/exercise-demo.webm"})
	got, err := play(t, p, ExerciseRef(providers.ModeTest, benchID))
	if err != nil || got != "/console/static/sandbox/exercise-demo.webm" {
		t.Fatalf("sandbox play: %q %v", got, err)
	}
	if _, err := play(t, p, ExerciseRef(providers.ModeTest, "00000000-0000-4000-8000-000000000000")); providertest.ErrorCode(err) != providers.CodeWorkoutUnavailable {
		t.Errorf("unknown sandbox exercise: %v", err)
	}
	if len(f.Requests()) != 0 {
		t.Errorf("a sandbox workout reached the live provider")
	}
}

func TestPlayerBoundedCache(t *testing.T) {
	c := &clock{now: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)}
	f := newFake(t, true)
	f.routes["/exercises/a"] = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":{"id":"a","title":"A","hasVideo":true,"videoUrl":"https://cdn.example/a.mp4","videos":[]}}`))
	}
	f.routes["/exercises/b"] = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":{"id":"b","title":"B","hasVideo":true,"videos":[{"id":"v","videoUrl":"https://cdn.example/b.mp4","tag":"gym-shot","isPrimary":false}]}}`))
	}
	f.routes["/exercises/c"] = f.routes["/exercises/a"]
	p := NewPlayer(clients(t, f, nil), PlayerOptions{Now: c.Now, MaxEntries: 2})
	for _, id := range []string{"a", "b", "c"} {
		if _, err := play(t, p, id); err != nil {
			t.Fatal(err)
		}
		c.advance(time.Minute)
	}
	if p.cached() != 2 {
		t.Fatalf("%d cached, want the bound 2", p.cached())
	}
	// "a" expired soonest and was evicted: playing it again is a lookup; "c" is still cached.
	n := len(f.Requests())
	if _, err := play(t, p, "c"); err != nil || len(f.Requests()) != n {
		t.Fatalf("c: %v", err)
	}
	if got, err := play(t, p, "b"); err != nil || got != "https://cdn.example/b.mp4" {
		t.Fatalf("b (first video with a URL): %q %v", got, err)
	}
	if _, err := play(t, p, "a"); err != nil || len(f.Requests()) != n+1 {
		t.Fatalf("a was not evicted: %v, %d lookups", err, len(f.Requests())-n)
	}
}

func TestPlayerOneRenewalAtATime(t *testing.T) {
	c := &clock{now: benchExpiry.Add(-40 * time.Hour)}
	f := newFake(t, true)
	release := make(chan struct{})
	body := providertest.Fixture(t, "exercise.json")
	f.routes["/exercises/"+benchID] = func(w http.ResponseWriter, _ *http.Request) {
		<-release
		_, _ = w.Write(body)
	}
	p := NewPlayer(clients(t, f, nil), PlayerOptions{Now: c.Now})
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := play(t, p, benchID)
			errs <- err
		}()
	}
	// The barrier: the renewal is at the upstream (the other callers join it or, if they come
	// later, find its answer cached).
	for deadline := time.Now().Add(10 * time.Second); len(f.Requests()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no renewal reached the upstream")
		}
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Late callers join the running renewal or find its answer cached: exactly one lookup.
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
}

func TestURLExpiry(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"https://vz.b-cdn.net/x/play.mp4?token=t&expires=1790006400":                                        time.Unix(1790006400, 0),
		"https://d111.cloudfront.net/x.mp4?Expires=1790000000&Signature=s&Key-Pair-Id=k":                    time.Unix(1790000000, 0),
		"https://b.s3.amazonaws.com/x.mp4?X-Amz-Date=20261001T110000Z&X-Amz-Expires=3600&X-Amz-Signature=s": time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC),
		// Cloud Storage v4, an Azure SAS and a CloudFront custom policy carry the expiry in their own
		// parameters; before these were read, such URLs were served for 24 hours even when they
		// died sooner.
		"https://storage.googleapis.com/b/x.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261001T113000Z&X-Goog-Expires=3600&X-Goog-Signature=s":                                                                              time.Date(2026, 10, 1, 12, 30, 0, 0, time.UTC),
		"https://a.blob.core.windows.net/c/x.mp4?sv=2024-11-04&se=2026-10-01T13%3A00%3A00Z&sr=b&sp=r&sig=s":                                                                                                                         time.Date(2026, 10, 1, 13, 0, 0, 0, time.UTC),
		"https://d111.cloudfront.net/x.mp4?Policy=" + cloudFrontPolicy(`{"Statement":[{"Resource":"https://d111.cloudfront.net/x.mp4","Condition":{"DateLessThan":{"AWS:EpochTime":1790003600}}}]}`) + "&Signature=s&Key-Pair-Id=k": time.Unix(1790003600, 0),
		"https://d111.cloudfront.net/x.mp4?Policy=not-base64!&Signature=s":                                                                                                                                                          now.Add(48 * time.Hour),
		"https://a.blob.core.windows.net/c/x.mp4?se=2026-10-01T13%3A00%3A00Z":                                                                                                                                                       now.Add(48 * time.Hour), // not a SAS without its signature
		"https://cdn.example/x.mp4":                       now.Add(48 * time.Hour),
		"https://cdn.example/x.mp4?expires=soon":          now.Add(48 * time.Hour),
		"https://b.s3.amazonaws.com/x.mp4?X-Amz-Date=bad": now.Add(48 * time.Hour),
	}
	for link, want := range cases {
		if got := urlExpiry(link, now); !got.Equal(want) {
			t.Errorf("%s: %v, want %v", link, got, want)
		}
	}
}

// cloudFrontPolicy encodes a custom policy as CloudFront does: base64 with + as -, = as _, / as ~.
func cloudFrontPolicy(doc string) string {
	return strings.NewReplacer("+", "-", "=", "_", "/", "~").Replace(base64.StdEncoding.EncodeToString([]byte(doc)))
}

// A saved workout whose link carries a Cloud Storage expiry 30 minutes out is served until 5
// minutes before it, then re-signed by a lookup: never the dead link (before X-Goog-Expires was
// read such a link was served for 24 hours).
func TestPlayerRenewsAtACloudStorageExpiry(t *testing.T) {
	c := &clock{now: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)}
	signed := func() string { // what YMove answers now: a link signed at the lookup, good for 30 minutes
		return "https://storage.googleapis.com/b/x.mp4?X-Goog-Date=" + c.Now().UTC().Format("20060102T150405Z") + "&X-Goog-Expires=1800&X-Goog-Signature=s"
	}
	f := newFake(t, true)
	f.mu.Lock()
	f.routes["/exercises/"+benchID] = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":{"id":"` + benchID + `","title":"Squat","hasVideo":true,"videos":[{"id":"v1","videoUrl":"` + signed() + `","isPrimary":true}]}}`))
	}
	f.mu.Unlock()
	p := NewPlayer(clients(t, f, nil), PlayerOptions{Now: c.Now})
	first := signed()
	for _, step := range []struct {
		after   time.Duration
		lookups int
		fresh   bool
	}{{0, 1, false}, {24 * time.Minute, 1, false}, {time.Minute + time.Second, 2, true}} {
		c.advance(step.after)
		got, err := play(t, p, benchID)
		if err != nil || (got == first) == step.fresh {
			t.Fatalf("after %s: %q %v (fresh link wanted: %v)", step.after, got, err, step.fresh)
		}
		if n := len(f.Requests()); n != step.lookups {
			t.Fatalf("after %s: %d lookups, want %d", step.after, n, step.lookups)
		}
	}
}
