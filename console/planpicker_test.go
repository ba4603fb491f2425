package console_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// The plan form's picker stores the plan grammar: every capability, those up to a typical
// cost, or the ticked ones; a refused value (a negative cost) keeps the form with its message.
func TestPlanCapabilityPicker(t *testing.T) {
	e := newEnv(t, tenantstest.SQLite(t))
	admin := signedIn(t, e, "admin@picker.test", tenants.RoleAdmin)
	base := url.Values{"cap": {"1000"}, "rate": {"60"}, "multiplier": {"1"}, "projects": {"1"}, "items": {"10"}, "sharpen_max": {"stock"}}
	with := func(kv ...string) url.Values {
		v := url.Values{}
		for k, x := range base {
			v[k] = x
		}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"all", with("caps_mode", "all"), "all"},
		{"typical", with("caps_mode", "typical", "caps_typical", "4"), "typical<=4"},
		{"list", with("caps_mode", "list", "caps_id", "web.search", "caps_id", "books.search"), "books.search,web.search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := admin.post("/console/admin/plans", with2(tc.form, "name", "p-"+tc.name))
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("create: %d", res.StatusCode)
			}
			p, err := e.store.Plan(context.Background(), "p-"+tc.name)
			if err != nil || p.Capabilities != tc.want {
				t.Fatalf("stored %q (%v), want %q", p.Capabilities, err, tc.want)
			}
			// The picker shows what is stored.
			_, page := admin.do(http.MethodGet, "/console/admin/plans", nil)
			mode, _ := doc(t, page).Find(`[data-testid="caps-picker-p-` + tc.name + `"] input[name="caps_mode"][checked]`).Attr("value")
			if mode != tc.name {
				t.Fatalf("the picker shows %q", mode)
			}
		})
	}
	res, page := admin.post("/console/admin/plans", with2(with("caps_mode", "typical", "caps_typical", "-1"), "name", "p-bad"))
	if res.StatusCode != http.StatusUnprocessableEntity || doc(t, page).Find(`[data-testid="err-capabilities"]`).Length() != 1 {
		t.Fatalf("a negative typical cost: %d", res.StatusCode)
	}
}

func with2(v url.Values, k, x string) url.Values {
	v.Set(k, x)
	return v
}
