package console

import (
	"testing"
	"time"

	"github.com/capgate/capgate/tenants"
)

func TestChartScaleAndDays(t *testing.T) {
	for _, tc := range []struct{ n, want int64 }{{0, 1}, {1, 1}, {3, 5}, {7, 10}, {10, 10}, {11, 20}, {180, 200}, {201, 500}, {50001, 100000}} {
		if got := niceCeil(tc.n); got != tc.want {
			t.Errorf("niceCeil(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	start, end := day(1), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{day(1).Add(9 * time.Hour), 7}, // the first day of a period: a week, not a month
		{day(12), 12},                  // the period so far
		{day(30).Add(23 * time.Hour), 30},
	} {
		if got := len(chartDays(start, end, tc.now)); got != tc.want {
			t.Errorf("chart days on %s: %d, want %d", tc.now, got, tc.want)
		}
	}
	// One day of 7 credits: the scale ends at 10 with ticks 0, 5, 10, and the bar is not a sliver.
	c := UsageChart(chartDays(start, end, day(1)), []tenants.DailyUsage{{Day: "2026-11-01", Capability: "books.search", Credits: 7}}, func(string) string { return "Research and reading" })
	if len(c.Ticks) != 3 || c.Ticks[0].Label != "0" || c.Ticks[1].Label != "5" || c.Ticks[2].Label != "10" {
		t.Fatalf("ticks %+v", c.Ticks)
	}
	if len(c.Bars) != 7 || c.Bars[0].Width < 40 {
		t.Fatalf("%d bars, the first %d px wide", len(c.Bars), c.Bars[0].Width)
	}
}
