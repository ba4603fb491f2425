-- A key's scope (issue 32): JSON {capabilities, topics}; empty or NULL is unlimited.
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT '';
