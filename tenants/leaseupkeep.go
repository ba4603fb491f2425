package tenants

// The meter's upkeep of its leases: renewal of leases in use, release of idle ones, and the
// reconciliation of leases whose instance died (meter.go has the call path).

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// upkeep renews leases in use, returns idle ones and reconciles dead instances' leases.
func (m *Meter) upkeep() {
	defer close(m.done)
	tick := time.NewTicker(max(m.opts.IdleRelease/3, 100*time.Millisecond))
	defer tick.Stop()
	lastReconcile := time.Time{}
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m.tend(ctx)
		if time.Since(lastReconcile) >= m.opts.LeaseTTL/2 {
			if _, err := m.Reconcile(ctx); err != nil {
				m.log.Warn("lease reconciliation failed", "err", err)
			}
			lastReconcile = time.Now()
		}
		cancel()
	}
}

// tend releases idle leases and renews the others, each database round trip outside the lease's
// lock.
func (m *Meter) tend(ctx context.Context) {
	now := Now()
	m.mu.Lock()
	ls := make([]*lease, 0, len(m.leases))
	for _, l := range m.leases {
		ls = append(ls, l)
	}
	m.mu.Unlock()
	for _, l := range ls {
		l.mu.Lock()
		free := l.st.idle() && l.topUp == nil && l.want == 0 && l.periodCheck == nil
		if free && (now.Sub(l.lastUse) >= m.opts.IdleRelease || !now.Before(l.end)) {
			m.mu.Lock()
			if m.leases[l.key] == l {
				delete(m.leases, l.key)
			}
			m.mu.Unlock()
			l.gone = true
			id := l.st.id
			l.mu.Unlock()
			if id != "" {
				if err := m.release(ctx, id); err != nil {
					m.releases.Add(1)
					m.log.Warn("lease release failed; reconciliation returns it after its expiry", "lease", id, "err", err)
				}
			}
			continue
		}
		id := l.st.id
		renew := id != "" && now.Sub(l.renewedAt) >= m.opts.LeaseTTL/3
		l.mu.Unlock()
		if !renew {
			continue
		}
		if _, err := m.db.NewUpdate().Table("credit_leases").Set("expires_at = ?", now.Add(m.opts.LeaseTTL)).
			Where("id = ?", id).Exec(ctx); err != nil {
			m.renewals.Add(1)
			m.log.Warn("lease renewal failed", "lease", id, "err", err)
			continue
		}
		l.mu.Lock()
		if l.st.id == id {
			l.renewedAt = now
		}
		l.mu.Unlock()
	}
}

// release returns a lease's unspent credits to its period and deletes it. Callers make sure no
// charge of it is still in flight.
func (m *Meter) release(ctx context.Context, id string) error {
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return returnLease(ctx, tx, m.db.Kind, id, time.Time{})
	})
}

// returnLease moves amount - spent of a lease back from leased and deletes the row; with a
// non-zero before, only when the lease expired before it.
func returnLease(ctx context.Context, tx bun.Tx, kind Dialect, id string, before time.Time) error {
	row := new(CreditLease)
	if err := tx.NewSelect().Model(row).Where("id = ?", id).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	}
	if kind == Postgres {
		// Lock the period row before the lease row (the order every writer uses), then read
		// the lease again under its lock.
		var one int
		if err := tx.NewSelect().Table("credit_periods").ColumnExpr("1").
			Where("tenant_id = ? AND mode = ? AND period_start = ?", row.TenantID, row.Mode, row.PeriodStart).For("UPDATE").Scan(ctx, &one); err != nil {
			return err
		}
		if err := tx.NewSelect().Model(row).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
	}
	if !before.IsZero() && !row.ExpiresAt.Before(before) {
		return nil // renewed meanwhile: its holder is alive
	}
	if held := row.Amount - row.Spent; held != 0 {
		if _, err := tx.NewUpdate().Table("credit_periods").Set("leased = leased - ?", held).
			Where("tenant_id = ? AND mode = ? AND period_start = ?", row.TenantID, row.Mode, row.PeriodStart).Exec(ctx); err != nil {
			return err
		}
	}
	_, err := tx.NewDelete().Model(row).WherePK().Exec(ctx)
	return err
}

// Reconcile returns the unspent credits of expired leases (instances that died without
// returning them) to their periods. What a lease's committed ledger rows charged is its spent,
// so after reconciliation used == SUM(ledger) and leased == 0 for a period nobody holds.
func (m *Meter) Reconcile(ctx context.Context) (int, error) {
	now := Now()
	var ids []string
	if err := m.db.NewSelect().Table("credit_leases").Column("id").Where("expires_at < ?", now).Limit(1000).Scan(ctx, &ids); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return returnLease(ctx, tx, m.db.Kind, id, now)
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
