package tenants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrQuota is returned when a plan's project or item quota is used up.
var ErrQuota = errors.New("quota used up")

// ProjectOwner is whose projects these are: a tenant in one key mode. Projects, their items and
// their quota are kept apart by mode exactly as balances and idempotency keys are, so a test key
// never sees or touches live projects.
type ProjectOwner struct {
	TenantID string
	Mode     string
}

// Project is a durable research folder of a tenant.
type Project struct {
	bun.BaseModel `bun:"table:projects,alias:p"`

	ID        string    `bun:"id,pk" json:"project_id"`
	TenantID  string    `bun:"tenant_id" json:"-"`
	Mode      string    `bun:"mode" json:"-"`
	Name      string    `bun:"name" json:"name"`
	CreatedAt time.Time `bun:"created_at" json:"created_at"`
	UpdatedAt time.Time `bun:"updated_at" json:"updated_at"`
	ItemCount int       `bun:"item_count,scanonly" json:"item_count"`
}

// ProjectItem is a saved record snapshot or a note.
type ProjectItem struct {
	bun.BaseModel `bun:"table:project_items"`

	ID         string    `bun:"id,pk" json:"item_id"`
	ProjectID  string    `bun:"project_id" json:"project_id"`
	TenantID   string    `bun:"tenant_id" json:"-"`
	Mode       string    `bun:"mode" json:"-"`
	Kind       string    `bun:"kind" json:"kind"`
	RecordID   string    `bun:"record_id" json:"record_id,omitempty"`
	Capability string    `bun:"capability" json:"capability,omitempty"`
	Snapshot   string    `bun:"snapshot" json:"-"`
	Note       string    `bun:"note" json:"note,omitempty"`
	CreatedAt  time.Time `bun:"created_at" json:"created_at"`
}

// ProjectUsage is how much of the quota a tenant uses.
type ProjectUsage struct {
	Projects int
	Items    int
}

// ProjectUsage counts an owner's projects and items.
func (s *Store) ProjectUsage(ctx context.Context, o ProjectOwner) (ProjectUsage, error) {
	var u ProjectUsage
	n, err := s.DB.NewSelect().Model((*Project)(nil)).Where("tenant_id = ? AND mode = ?", o.TenantID, o.Mode).Count(ctx)
	if err != nil {
		return u, err
	}
	m, err := s.DB.NewSelect().Model((*ProjectItem)(nil)).Where("tenant_id = ? AND mode = ?", o.TenantID, o.Mode).Count(ctx)
	u.Projects, u.Items = int(n), int(m)
	return u, err
}

// lockTenant serializes quota checks of one tenant (PostgreSQL row lock; SQLite transactions are
// already exclusive, begun IMMEDIATE).
func (s *Store) lockTenant(ctx context.Context, tx bun.Tx, tenantID string) error {
	if s.DB.Kind != Postgres {
		return nil
	}
	var id string
	return tx.NewSelect().Table("tenants").Column("id").Where("id = ?", tenantID).For("UPDATE").Scan(ctx, &id)
}

// CreateProject adds a project within the plan's quota.
func (s *Store) CreateProject(ctx context.Context, o ProjectOwner, plan *Plan, name string) (*Project, error) {
	if err := checkText("name", name); err != nil {
		return nil, err
	}
	now := Now()
	p := &Project{ID: NewID("prj"), TenantID: o.TenantID, Mode: o.Mode, Name: name, CreatedAt: now, UpdatedAt: now}
	err := s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockTenant(ctx, tx, o.TenantID); err != nil {
			return err
		}
		n, err := tx.NewSelect().Model((*Project)(nil)).Where("tenant_id = ? AND mode = ?", o.TenantID, o.Mode).Count(ctx)
		if err != nil {
			return err
		}
		if int(n) >= plan.ProjectLimit {
			return fmt.Errorf("%w: the %s plan allows %d projects", ErrQuota, plan.ID, plan.ProjectLimit)
		}
		_, err = tx.NewInsert().Model(p).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Projects lists a tenant's projects, newest first, with item counts.
func (s *Store) Projects(ctx context.Context, o ProjectOwner, limit, offset int) ([]Project, error) {
	var ps []Project
	err := s.DB.NewSelect().Model(&ps).
		ColumnExpr("p.*").
		ColumnExpr("(SELECT COUNT(*) FROM project_items i WHERE i.project_id = p.id) AS item_count").
		Where("p.tenant_id = ? AND p.mode = ?", o.TenantID, o.Mode).OrderExpr("p.created_at DESC, p.id DESC").
		Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return ps, err
}

// Project loads one of a tenant's projects.
func (s *Store) Project(ctx context.Context, o ProjectOwner, id string) (*Project, error) {
	p := new(Project)
	if !storable(id) {
		return p, ErrNotFound
	}
	err := s.DB.NewSelect().Model(p).ColumnExpr("p.*").
		ColumnExpr("(SELECT COUNT(*) FROM project_items i WHERE i.project_id = p.id) AS item_count").
		Where("p.id = ? AND p.tenant_id = ? AND p.mode = ?", id, o.TenantID, o.Mode).Scan(ctx)
	return p, notFound(err)
}

// DeleteProject removes a project and its items.
func (s *Store) DeleteProject(ctx context.Context, o ProjectOwner, id string) error {
	if !storable(id) {
		return ErrNotFound
	}
	return s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*ProjectItem)(nil)).Where("project_id = ? AND tenant_id = ? AND mode = ?", id, o.TenantID, o.Mode).Exec(ctx); err != nil {
			return err
		}
		res, err := tx.NewDelete().Model((*Project)(nil)).Where("id = ? AND tenant_id = ? AND mode = ?", id, o.TenantID, o.Mode).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// AddItem saves an item into its owner's project (item.TenantID and item.Mode) within the plan's
// item quota.
func (s *Store) AddItem(ctx context.Context, plan *Plan, item *ProjectItem) error {
	if !storable(item.ProjectID) {
		return ErrNotFound
	}
	if err := checkTexts("note", item.Note, "record_id", item.RecordID, "capability", item.Capability, "snapshot", item.Snapshot); err != nil {
		return err
	}
	item.ID, item.CreatedAt = NewID("itm"), Now()
	return s.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockTenant(ctx, tx, item.TenantID); err != nil {
			return err
		}
		exists, err := tx.NewSelect().Model((*Project)(nil)).Where("id = ? AND tenant_id = ? AND mode = ?", item.ProjectID, item.TenantID, item.Mode).Exists(ctx)
		if err != nil {
			return err
		}
		if !exists {
			return ErrNotFound
		}
		n, err := tx.NewSelect().Model((*ProjectItem)(nil)).Where("tenant_id = ? AND mode = ?", item.TenantID, item.Mode).Count(ctx)
		if err != nil {
			return err
		}
		if int(n) >= plan.ItemLimit {
			return fmt.Errorf("%w: the %s plan allows %d saved items", ErrQuota, plan.ID, plan.ItemLimit)
		}
		if _, err := tx.NewInsert().Model(item).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewUpdate().Model((*Project)(nil)).Set("updated_at = ?", item.CreatedAt).Where("id = ?", item.ProjectID).Exec(ctx)
		return err
	})
}

// Items lists a project's items, newest first.
func (s *Store) Items(ctx context.Context, o ProjectOwner, projectID string, limit, offset int) ([]ProjectItem, error) {
	var items []ProjectItem
	if !storable(projectID) {
		return items, nil
	}
	err := s.DB.NewSelect().Model(&items).Where("project_id = ? AND tenant_id = ? AND mode = ?", projectID, o.TenantID, o.Mode).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return items, err
}

// DeleteItem removes one item of a tenant's project.
func (s *Store) DeleteItem(ctx context.Context, o ProjectOwner, projectID, itemID string) error {
	if !storable(projectID) || !storable(itemID) {
		return ErrNotFound
	}
	res, err := s.DB.NewDelete().Model((*ProjectItem)(nil)).
		Where("id = ? AND project_id = ? AND tenant_id = ? AND mode = ?", itemID, projectID, o.TenantID, o.Mode).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
