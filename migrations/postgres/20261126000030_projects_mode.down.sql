DROP INDEX project_items_tenant_mode;
--bun:split
DROP INDEX projects_tenant_mode;
--bun:split
ALTER TABLE project_items DROP COLUMN mode;
--bun:split
ALTER TABLE projects DROP COLUMN mode;
