CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  name TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX projects_tenant ON projects (tenant_id, created_at);
--bun:split
CREATE TABLE project_items (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  kind TEXT NOT NULL,
  record_id TEXT NOT NULL DEFAULT '',
  capability TEXT NOT NULL DEFAULT '',
  snapshot TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX project_items_project ON project_items (project_id, created_at);
--bun:split
CREATE INDEX project_items_tenant ON project_items (tenant_id);
--bun:split
CREATE TABLE idempotency_keys (
  tenant_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 0,
  content_type TEXT NOT NULL DEFAULT '',
  response TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
--bun:split
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
