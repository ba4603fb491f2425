package console

import (
	"regexp"
	"sort"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// settingInReason finds the setting an unavailable reason names (the client's reasons always
// name the one to set: PROVIDER_<ID>_KEY, PROVIDER_<ID>_URL or GATEWAY_CONTACT).
var settingInReason = regexp.MustCompile(`\b(PROVIDER_[A-Z0-9_]+_(?:KEY|URL)|` + providers.ContactSetting + `)\b`)

// goingLive is the operator's card: each setting that live mode still misses, with the
// capabilities it alone unlocks and those it is one of several missing settings for, ranked by
// how many it unlocks.
func (cn *Console) goingLive() views.GoingLive {
	type entry struct {
		row    views.UnlockRow
		unlock map[string]bool
	}
	bySetting := map[string]*entry{}
	out := views.GoingLive{Total: len(cn.opts.Capabilities)}
	for _, cp := range cn.opts.Capabilities {
		if ok, _ := cn.available(cp, tenants.ModeLive); ok {
			out.Available++
			continue
		}
		missing := map[string]*providers.Provider{}
		for _, id := range cp.Providers {
			ok, why := cn.opts.Client.Configured(id)
			if ok {
				continue
			}
			setting := settingInReason.FindString(why)
			if setting == "" {
				continue
			}
			p, _ := cn.opts.Client.Provider(id)
			missing[setting] = p
		}
		for setting, p := range missing {
			e := bySetting[setting]
			if e == nil {
				e = &entry{row: views.UnlockRow{Setting: setting}, unlock: map[string]bool{}}
				bySetting[setting] = e
			}
			if setting == providers.ContactSetting {
				e.row.Provider = "contact details for polite public APIs"
				e.row.Hint = "an email address or URL the upstreams can reach you at; no sign-up"
			} else if p != nil {
				e.row.Provider, e.row.SignUp = p.Title, p.SignUp
				if p.SignUp == "" && p.KeyRequired {
					e.row.Hint = "see the provider's site for a key"
				}
			}
			if len(missing) == 1 {
				e.row.Unlocks = append(e.row.Unlocks, cp.ID)
			} else {
				e.row.Helps = append(e.row.Helps, cp.ID)
			}
		}
	}
	for _, e := range bySetting {
		sort.Strings(e.row.Unlocks)
		sort.Strings(e.row.Helps)
		out.Rows = append(out.Rows, e.row)
	}
	sort.Slice(out.Rows, func(i, j int) bool {
		a, b := out.Rows[i], out.Rows[j]
		if len(a.Unlocks) != len(b.Unlocks) {
			return len(a.Unlocks) > len(b.Unlocks)
		}
		if len(a.Helps) != len(b.Helps) {
			return len(a.Helps) > len(b.Helps)
		}
		return a.Setting < b.Setting
	})
	return out
}
