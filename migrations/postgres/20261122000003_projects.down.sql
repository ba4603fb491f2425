DROP TABLE idempotency_keys;
--bun:split
DROP TABLE project_items;
--bun:split
DROP TABLE projects;
