package tenants_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

func TestScopeAllows(t *testing.T) {
	limited, err := tenants.ParseScope("web.search, weather.forecast,web.search", "Dev,Web and news")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(limited, tenants.Scope{Capabilities: []string{"weather.forecast", "web.search"}, Topics: []string{"dev", "web-and-news"}}) {
		t.Fatalf("parsed %+v", limited)
	}
	for _, c := range []struct {
		scope     tenants.Scope
		id, topic string
		want      bool
	}{
		{tenants.Scope{}, "books.search", "Research and reading", true},
		{limited, "web.search", "Web and news", true},
		{limited, "weather.forecast", "Travel and places", true},
		{limited, "repo.search", "Dev", true},
		{limited, "news.search", "Web and news", true},
		{limited, "books.search", "Research and reading", false},
		{limited, "sharpen", "", false},
		{limited, "web.search.x", "", false},
		{limited, "", "", false},
		{tenants.Scope{Capabilities: []string{"sharpen"}}, "sharpen", "", true},
	} {
		if got := c.scope.Allows(c.id, c.topic); got != c.want {
			t.Errorf("%v allows %s (%s): %t, want %t", c.scope, c.id, c.topic, got, c.want)
		}
	}
	narrow, _ := tenants.ParseScope("books.search", "")
	if both := limited.Narrow(narrow); both("books.search", "Research and reading") || both("web.search", "Web and news") {
		t.Error("a narrowing filter widened the scope or kept what it does not name")
	}
	for _, bad := range [][2]string{{"Web.Search", ""}, {"web search", ""}, {"web..search", ""}, {"", "!!!"}, {"a\x00b", ""}} {
		if _, err := tenants.ParseScope(bad[0], bad[1]); err == nil {
			t.Errorf("ParseScope(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

// TestScopedKeyRoundTrip: a scoped key keeps its scope in both databases; an unscoped key reads
// back unlimited.
func TestScopedKeyRoundTrip(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		{
			s := tenants.NewStore(db)
			ctx := context.Background()
			tn, err := s.CreateTenant(ctx, "Scoped", "pro", "")
			if err != nil {
				t.Fatal(err)
			}
			scope, _ := tenants.ParseScope("web.search,weather.forecast", "dev")
			k, raw, err := s.CreateScopedKey(ctx, tn.ID, tenants.ModeTest, "scoped", scope)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.KeyByHash(ctx, tenants.HashKey(raw))
			if err != nil || !reflect.DeepEqual(got.Scope, scope) || got.ID != k.ID {
				t.Errorf("read back %+v (%v), want %+v", got.Scope, err, scope)
			}
			_, raw2, err := s.CreateKey(ctx, tn.ID, tenants.ModeLive, "plain")
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := s.KeyByHash(ctx, tenants.HashKey(raw2)); err != nil || !plain.Scope.Unlimited() {
				t.Errorf("unscoped key reads back %+v (%v)", plain.Scope, err)
			}
		}
	})
}
