-- Key policies (issue 34): a key's metadata, expiry, own credit budget per period (0: none; its
-- usage is metered in credit_periods under the mode "key:<key id>" with the tenant's leases),
-- own rate (0: the plan's), the manage permission, and the previous secret a roll keeps valid
-- until prev_expires_at.
ALTER TABLE api_keys ADD COLUMN metadata TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
--bun:split
ALTER TABLE api_keys ADD COLUMN credit_budget BIGINT NOT NULL DEFAULT 0 CHECK (credit_budget >= 0);
--bun:split
ALTER TABLE api_keys ADD COLUMN rate_per_minute INTEGER NOT NULL DEFAULT 0 CHECK (rate_per_minute >= 0);
--bun:split
ALTER TABLE api_keys ADD COLUMN manage BOOLEAN NOT NULL DEFAULT FALSE;
--bun:split
ALTER TABLE api_keys ADD COLUMN prev_hash TEXT;
--bun:split
ALTER TABLE api_keys ADD COLUMN prev_expires_at TIMESTAMPTZ;
--bun:split
CREATE UNIQUE INDEX api_keys_prev_hash ON api_keys (prev_hash);
