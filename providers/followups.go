package providers

import "fmt"

// FollowUp describes one follow-up a capability offers, in the words inspect, the guide, the
// API reference and the console all show (one source).
type FollowUp struct {
	Action      string
	Scope       string // search or record
	Description string
	// Credits is what a fresh call of the follow-up costs before the plan's multiplier.
	Credits int
}

// FollowUps lists the capability's follow-ups: more, update, then its record actions.
func (c *Capability) FollowUps() []FollowUp {
	var out []FollowUp
	switch c.Paging {
	case PagingLocal:
		out = append(out, FollowUp{Action: "more", Scope: "search",
			Description: "next page from the result set held in the session; free, no provider call"})
	case PagingSingle:
	default:
		out = append(out, FollowUp{Action: "more", Scope: "search", Credits: c.Cost.Typical,
			Description: fmt.Sprintf("next page from the provider (%s paging); costs like the search", c.Paging.Label())})
	}
	if !c.NoUpdate {
		out = append(out, FollowUp{Action: "update", Scope: "search", Credits: c.Cost.Typical,
			Description: "merge params into the stored query, reset paging and run it again under the same search_id (null removes a field)"})
	}
	for _, a := range c.Actions {
		desc, credits := a.Description, 0
		switch {
		case a.Kind == ActionStored:
			desc += " (stored at search time: free; 410 session_expired once gone)"
		case a.Credits == 0:
			desc += " (free provider lookup; repeats are cached)"
		default:
			credits = a.Credits
			desc += fmt.Sprintf(" (%d credits for a fresh lookup; repeats are cached and free)", a.Credits)
		}
		out = append(out, FollowUp{Action: a.Name, Scope: "record", Description: desc, Credits: credits})
	}
	return out
}
