-- A key's manage permission (issue 34): only a key with it may call the management API
-- (/v1/keys, /v1/requests, /v1/usage). Existing keys keep plain access.
ALTER TABLE api_keys ADD COLUMN manage BOOLEAN NOT NULL DEFAULT false;
