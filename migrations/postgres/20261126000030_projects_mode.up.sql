-- Projects belong to a key mode, as balances and idempotency keys do: a test key never sees or
-- touches live projects, and each mode has its own quota. Existing projects were made by live or
-- test keys alike; they stay with live, where the console has always shown them.
ALTER TABLE projects ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
--bun:split
ALTER TABLE project_items ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
--bun:split
CREATE INDEX projects_tenant_mode ON projects (tenant_id, mode, created_at);
--bun:split
CREATE INDEX project_items_tenant_mode ON project_items (tenant_id, mode);
