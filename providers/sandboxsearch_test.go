package providers

import (
	"testing"
	"time"
)

func TestTopicWords(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"heat pump", "heat pump"},
		{"site:go.dev generics -java", "generics"},
		{`"exact phrase" intitle:otters`, "exact phrase otters"},
		{"mars rover when:7d", "mars rover"},
		{"artemis from:NASA -is:retweet", "artemis"},
		{"NASA @SpaceX #launch", "NASA SpaceX launch"},
		{"tea OR coffee", "tea coffee"},
		{"site:example.org", "site:example.org"},
		{"https://go.dev/doc", "https://go.dev/doc"},
	} {
		if got := TopicWords(c.q); got != c.want {
			t.Errorf("TopicWords(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	if v := QueryOperator("otters from:Otter_Watch lang:de", "from"); v != "Otter_Watch" {
		t.Errorf("from: %q", v)
	}
	if v := QueryOperator("otters", "site"); v != "" {
		t.Errorf("site: %q", v)
	}
}

func TestUpperFirstKeepsRunes(t *testing.T) {
	for in, want := range map[string]string{"élan": "Élan", "ошибка": "Ошибка", "": "", "x": "X", "東京": "東京"} {
		if got := UpperFirst(in); got != want {
			t.Errorf("UpperFirst(%q) = %q", in, got)
		}
	}
	if NewsTitle("été", 4) == "" || TopicTitle("ß", 25) == "" {
		t.Error("empty title")
	}
}

func TestSynthTimeWithinWindowNewestFirst(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	prev := now.Add(time.Hour)
	for i := range 30 {
		at := SynthTime("otters", i, 30, now, 7*24*time.Hour)
		if at.After(now) || at.Before(now.Add(-7*24*time.Hour)) || !at.Before(prev) {
			t.Fatalf("record %d at %v (previous %v)", i, at, prev)
		}
		if at != SynthTime("otters", i, 30, now, 7*24*time.Hour) {
			t.Fatal("not deterministic")
		}
		prev = at
	}
}
