DROP TABLE audit_log;
--bun:split
DROP TABLE provider_settings;
--bun:split
DROP TABLE workouts;
--bun:split
DROP TABLE sharpen_settings;
--bun:split
DROP TABLE ledger;
--bun:split
DROP TABLE credit_periods;
--bun:split
DROP TABLE api_keys;
--bun:split
DROP TABLE users;
--bun:split
DROP TABLE tenants;
--bun:split
DROP TABLE plans;
