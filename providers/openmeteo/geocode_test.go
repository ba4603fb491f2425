package openmeteo

import (
	"testing"
)

func TestDisplayName(t *testing.T) {
	cases := []struct {
		parts []string
		want  string
	}{
		{[]string{"Berlin", "Berlin", "Germany"}, "Berlin, Germany"},
		{[]string{"Enschede", "Overijssel", "The Netherlands"}, "Enschede, Overijssel, The Netherlands"},
		{[]string{"Antarctica", "", ""}, "Antarctica"},
		{[]string{"", "", ""}, ""},
	}
	for _, tc := range cases {
		if got := displayName(tc.parts...); got != tc.want {
			t.Errorf("displayName(%q) = %q, want %q", tc.parts, got, tc.want)
		}
	}
}
