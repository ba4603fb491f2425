package tenants

import (
	"sync"
	"time"
)

// The in-memory accounting of one lease: what a reservation, a settlement and a top-up do to it
// (the Meter holds the locks and does the I/O; meter.go).

// lease is this instance's view of one (tenant, mode, period): its state under mu, and the
// top-up in flight.
type lease struct {
	mu        sync.Mutex
	key       periodKey
	end       time.Time
	st        leaseState
	topUp     *topUp // the top-up in flight; nil when none
	want      int64  // credits the calls waiting for topUp still lack
	renewedAt time.Time
	lastUse   time.Time
	gone      bool // released: a new lease struct replaces it
	period    bool // the period row is known to exist
	// periodCheck is closed when the check of the period row in flight has ended.
	periodCheck chan struct{}
}

// topUp is one top-up of a lease in flight; done closes when it has ended.
type topUp struct {
	done chan struct{}
	err  error
	room int64 // the period's room left after it (-1: unknown)
}

// leaseState is the arithmetic of a lease, without I/O: what this instance holds of a period and
// what its calls reserved, settled and committed.
type leaseState struct {
	id        string // the lease row, "" until credits were taken
	granted   int64  // the row's amount (plus charges still pending on a replaced row)
	committed int64  // the row's spent
	pending   int64  // settled here, batch not yet committed
	reserved  int64  // outstanding reservations
	inflight  int    // reservations not yet settled or refunded, plus commits in flight
	used      int64  // the highest used of the period seen in the database (-1: none yet)
	usedAt    time.Time
}

// commitOutcome is what became of a settled charge's commit.
type commitOutcome int

const (
	commitOK      commitOutcome = iota // committed: the charge is spent
	commitFailed                       // not committed: the credits are the lease's again
	commitUnknown                      // may have committed: the credits are never sold again
)

func (s *leaseState) available() int64 { return s.granted - s.committed - s.pending - s.reserved }

// reserve takes n credits for a call when the lease holds them.
func (s *leaseState) reserve(n int64) bool {
	if n > s.available() {
		return false
	}
	s.reserved += n
	s.inflight++
	return true
}

// refund gives a reservation back.
func (s *leaseState) refund(n int64) {
	s.reserved -= n
	s.inflight--
}

// charge turns a reservation of n into a charge of actual, of which it takes only what the lease
// holds (the reservation included), and returns the charge now pending.
func (s *leaseState) charge(n, actual int64) int64 {
	s.reserved -= n
	charged := min(max(actual, 0), max(s.available(), 0))
	s.pending += charged
	return charged
}

// finish records the outcome of a pending charge's commit on the lease row leaseID; used is the
// period's used the commit read back (-1: none).
func (s *leaseState) finish(charged int64, leaseID string, out commitOutcome, used int64) {
	s.pending -= charged
	s.inflight--
	switch {
	case leaseID != s.id:
		// Charged (or not) on a lease row that has since been replaced: the current row's
		// grant counted it as pending, and it is not the current row's to give back.
		s.granted -= charged
	case out == commitOK || out == commitUnknown:
		// An unknown outcome counts as spent here: if it did not commit, the row still holds
		// the credits and its release returns them to the period.
		s.committed += charged
	}
	if out == commitOK {
		s.observe(used)
	}
}

// grant records k credits taken onto the lease row id (a new row when the old one was
// reconciled away: charges still pending on the old row leave granted as they finish).
func (s *leaseState) grant(id string, k int64) {
	if id != s.id {
		s.id, s.granted = id, s.committed+s.pending+k
		return
	}
	s.granted += k
}

// observe takes a used read from the database. used only grows within a period, so the
// highest value seen is the freshest and never more than the database holds: the view never
// adds a charge on top of a read that already holds it.
func (s *leaseState) observe(used int64) {
	if used < 0 {
		return
	}
	if used > s.used {
		s.used = used
	}
	s.usedAt = Now()
}

// idle tells whether nothing holds the lease.
func (s *leaseState) idle() bool { return s.inflight == 0 && s.pending == 0 && s.reserved == 0 }
