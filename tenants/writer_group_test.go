package tenants_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/capgate/capgate/tenants"
	"github.com/capgate/capgate/tenants/tenantstest"
)

// fakeWrite records how the writer applied it; group "" is applied alone.
type fakeWrite struct {
	id, group string
	refuse    bool // Apply refuses (its call fails, the batch commits)
	fail      bool // ApplyGroup fails while this write is in the group
	log       *writeLog
}

type writeLog struct {
	mu      sync.Mutex
	entries []string
	done    map[string]int
}

func (l *writeLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, s)
}

func (w *fakeWrite) Apply(context.Context, bun.Tx) error {
	w.log.add("apply " + w.id)
	if w.refuse {
		return tenants.Refuse(errors.New("refused " + w.id))
	}
	return nil
}

func (w *fakeWrite) Committed() {
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	w.log.done[w.id]++
}

func (w *fakeWrite) Group() string { return w.group }

func (w *fakeWrite) ApplyGroup(_ context.Context, _ bun.Tx, ws []tenants.Write) error {
	ids := make([]string, len(ws))
	fail := false
	for i, x := range ws {
		ids[i] = x.(*fakeWrite).id
		fail = fail || x.(*fakeWrite).fail
	}
	w.log.add("group " + w.group + ": " + strings.Join(ids, " "))
	if fail {
		return errors.New("group failed")
	}
	return nil
}

// TestWriterGroupsWrites: a batch applies each call's ungrouped writes in call order, then each
// group's writes of the calls not refused together in call order; a failing group aborts the
// batch, which is committed call by call, so only the failing call fails.
func TestWriterGroupsWrites(t *testing.T) {
	tenantstest.ForEach(t, func(t *testing.T, db *tenants.DB) {
		ctx := context.Background()
		tn, err := tenants.NewStore(db).CreateTenant(ctx, "Group", "free", "")
		if err != nil {
			t.Fatal(err)
		}
		log := &writeLog{done: map[string]int{}}
		w := func(id, group string) *fakeWrite { return &fakeWrite{id: id, group: group, log: log} }
		refusing := w("r2", "")
		refusing.refuse = true
		errs := tenants.CommitBatch(db, tn.ID,
			[]tenants.Write{w("g1", "a")},
			[]tenants.Write{w("g2", "a"), refusing},
			[]tenants.Write{w("p3", ""), w("g3", "a"), w("h3", "b")},
			[]tenants.Write{w("g4", "a")},
		)
		if errs[0] != nil || errs[2] != nil || errs[3] != nil || errs[1] == nil || !strings.Contains(errs[1].Error(), "refused r2") {
			t.Fatalf("errors %v, want only call 2 refused", errs)
		}
		want := "apply r2|apply p3|group a: g1 g3 g4|group b: h3"
		if got := strings.Join(log.entries, "|"); got != want {
			t.Errorf("applied %q, want %q", got, want)
		}
		if log.done["g2"] != 0 || log.done["g1"] != 1 || log.done["h3"] != 1 {
			t.Errorf("committed %v: the refused call's writes must not be", log.done)
		}

		log.entries = nil
		bad := w("bad", "a")
		bad.fail = true
		errs = tenants.CommitBatch(db, tn.ID, []tenants.Write{w("x1", "a")}, []tenants.Write{bad}, []tenants.Write{w("x3", "a")})
		if errs[0] != nil || errs[1] == nil || errs[2] != nil {
			t.Fatalf("errors %v, want only the failing call's", errs)
		}
		want = "group a: x1 bad x3|group a: x1|group a: bad|group a: x3"
		if got := strings.Join(log.entries, "|"); got != want {
			t.Errorf("applied %q, want %q", got, want)
		}
		var rows int
		if err := db.NewSelect().Table("ledger").ColumnExpr("count(*)").Where("tenant_id = ?", tn.ID).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		if rows != 5 {
			t.Errorf("%d ledger rows, want 5 (3 of the first batch, 2 of the second)", rows)
		}
	})
}
