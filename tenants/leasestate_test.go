package tenants

import "testing"

// The lease arithmetic without a database: each case runs steps on a fresh state and checks
// what is available, committed and granted, and the used it shows.
func TestLeaseState(t *testing.T) {
	type want struct{ available, granted, committed, pending, reserved, used int64 }
	cases := []struct {
		name  string
		steps func(s *leaseState) bool // false: a step refused what the case expected to pass
		want  want
	}{
		{"a new lease holds nothing and refuses a reservation", func(s *leaseState) bool {
			return !s.reserve(1)
		}, want{0, 0, 0, 0, 0, -1}},
		{"a zero reservation always passes", func(s *leaseState) bool {
			return s.reserve(0)
		}, want{0, 0, 0, 0, 0, -1}},
		{"grant then reserve takes from available", func(s *leaseState) bool {
			s.grant("lease_a", 5)
			return s.reserve(3) && !s.reserve(3) && s.reserve(2)
		}, want{0, 5, 0, 0, 5, -1}},
		{"refund gives the reservation back", func(s *leaseState) bool {
			s.grant("lease_a", 5)
			ok := s.reserve(4)
			s.refund(4)
			return ok && s.inflight == 0
		}, want{5, 5, 0, 0, 0, -1}},
		{"charge below the reservation returns the difference", func(s *leaseState) bool {
			s.grant("lease_a", 10)
			s.reserve(6)
			return s.charge(6, 2) == 2
		}, want{8, 10, 0, 2, 0, -1}},
		{"charge above what the lease holds takes only what it holds", func(s *leaseState) bool {
			s.grant("lease_a", 3)
			s.reserve(1)
			return s.charge(1, 7) == 3
		}, want{0, 3, 0, 3, 0, -1}},
		{"a negative charge charges nothing", func(s *leaseState) bool {
			s.grant("lease_a", 3)
			s.reserve(1)
			return s.charge(1, -4) == 0
		}, want{3, 3, 0, 0, 0, -1}},
		{"a committed charge is spent and its used is shown", func(s *leaseState) bool {
			s.grant("lease_a", 10)
			s.reserve(2)
			c := s.charge(2, 2)
			s.finish(c, "lease_a", commitOK, 42)
			return s.inflight == 0
		}, want{8, 10, 2, 0, 0, 42}},
		{"a charge that did not commit is available again", func(s *leaseState) bool {
			s.grant("lease_a", 10)
			s.reserve(2)
			c := s.charge(2, 2)
			s.finish(c, "lease_a", commitFailed, -1)
			return s.inflight == 0
		}, want{10, 10, 0, 0, 0, -1}},
		{"a charge of unknown outcome is never sold again", func(s *leaseState) bool {
			s.grant("lease_a", 10)
			s.reserve(2)
			c := s.charge(2, 2)
			s.finish(c, "lease_a", commitUnknown, -1)
			return true
		}, want{8, 10, 2, 0, 0, -1}},
		{"a replaced row keeps pending charges out of the new grant", func(s *leaseState) bool {
			s.grant("lease_a", 4)
			s.reserve(3)
			c := s.charge(3, 3) // pending on lease_a
			s.grant("lease_b", 5)
			before := s.available()
			s.finish(c, "lease_a", commitOK, 3)
			return before == 5
		}, want{5, 5, 0, 0, 0, 3}},
		{"a failed charge on a replaced row does not come back", func(s *leaseState) bool {
			s.grant("lease_a", 4)
			s.reserve(3)
			c := s.charge(3, 3)
			s.grant("lease_b", 5)
			s.finish(c, "lease_a", commitFailed, -1)
			return true
		}, want{5, 5, 0, 0, 0, -1}},
		{"used only moves up: a stale read or an older commit's value never lowers it", func(s *leaseState) bool {
			s.observe(30)
			s.observe(29)
			s.observe(-1)
			return true
		}, want{0, 0, 0, 0, 0, 30}},
		{"a commit's used is not added to a read that already holds it", func(s *leaseState) bool {
			s.grant("lease_a", 2)
			s.reserve(1)
			c := s.charge(1, 1)
			s.observe(30) // a top-up read the period after the commit landed
			s.finish(c, "lease_a", commitOK, 30)
			return true
		}, want{1, 2, 1, 0, 0, 30}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &leaseState{used: -1}
			if !tc.steps(s) {
				t.Fatal("a step did not do what the case expects")
			}
			got := want{s.available(), s.granted, s.committed, s.pending, s.reserved, s.used}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
