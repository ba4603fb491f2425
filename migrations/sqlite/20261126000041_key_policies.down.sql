DROP INDEX api_keys_prev_hash;
--bun:split
ALTER TABLE api_keys DROP COLUMN prev_expires_at;
--bun:split
ALTER TABLE api_keys DROP COLUMN prev_hash;
--bun:split
ALTER TABLE api_keys DROP COLUMN manage;
--bun:split
ALTER TABLE api_keys DROP COLUMN rate_per_minute;
--bun:split
ALTER TABLE api_keys DROP COLUMN credit_budget;
--bun:split
ALTER TABLE api_keys DROP COLUMN expires_at;
--bun:split
ALTER TABLE api_keys DROP COLUMN metadata;
