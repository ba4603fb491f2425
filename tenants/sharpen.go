package tenants

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// SharpenSetting is a tenant's saved sharpen stage ("stock" = off).
type SharpenSetting struct {
	bun.BaseModel `bun:"table:sharpen_settings"`

	TenantID  string    `bun:"tenant_id,pk"`
	Stage     string    `bun:"stage"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// SharpenStage is the tenant's saved stage; "stock" when never set.
func (s *Store) SharpenStage(ctx context.Context, tenantID string) (string, error) {
	var st SharpenSetting
	err := s.DB.NewSelect().Model(&st).Where("tenant_id = ?", tenantID).Scan(ctx)
	if errors.Is(notFound(err), ErrNotFound) {
		return "stock", nil
	}
	return st.Stage, err
}

// SetSharpenStage saves a stage the plan allows.
func (s *Store) SetSharpenStage(ctx context.Context, tenantID string, plan *Plan, stage string) error {
	if StageRank(stage) < 0 {
		return errors.New("unknown sharpen stage " + stage)
	}
	if !plan.AllowsStage(stage) {
		return errors.New("the plan does not allow sharpen stage " + stage)
	}
	st := &SharpenSetting{TenantID: tenantID, Stage: stage, UpdatedAt: Now()}
	_, err := s.DB.NewInsert().Model(st).On("CONFLICT (tenant_id) DO UPDATE").
		Set("stage = EXCLUDED.stage, updated_at = EXCLUDED.updated_at").Exec(ctx)
	return err
}
