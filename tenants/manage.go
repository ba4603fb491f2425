package tenants

import "context"

// SetKeyManage grants or withdraws a key's manage permission (tenantID "" means any tenant:
// admin). A key that is unknown, or of another tenant, is ErrNotFound.
func (s *Store) SetKeyManage(ctx context.Context, id, tenantID string, manage bool) (*APIKey, error) {
	if !storable(id) || !storable(tenantID) {
		return nil, ErrNotFound
	}
	q := s.DB.NewUpdate().Table("api_keys").Set("manage = ?", manage).Where("id = ?", id)
	if tenantID != "" {
		q = q.Where("tenant_id = ?", tenantID)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNotFound
	}
	return s.Key(ctx, id)
}
