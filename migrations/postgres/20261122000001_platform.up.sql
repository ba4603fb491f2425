CREATE TABLE plans (
  id TEXT PRIMARY KEY,
  credit_cap BIGINT NOT NULL CHECK (credit_cap >= 0),
  rate_per_minute INTEGER NOT NULL CHECK (rate_per_minute > 0),
  credit_multiplier DOUBLE PRECISION NOT NULL DEFAULT 1 CHECK (credit_multiplier > 0),
  capabilities TEXT NOT NULL DEFAULT 'all',
  sharpen_max TEXT NOT NULL DEFAULT 'stock',
  project_limit INTEGER NOT NULL DEFAULT 10,
  item_limit INTEGER NOT NULL DEFAULT 500,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL DEFAULT '',
  plan_id TEXT NOT NULL REFERENCES plans (id),
  status TEXT NOT NULL DEFAULT 'active',
  period_anchor TIMESTAMPTZ NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'owner',
  created_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  mode TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
);
--bun:split
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);
--bun:split
CREATE TABLE credit_periods (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  mode TEXT NOT NULL,
  period_start TIMESTAMPTZ NOT NULL,
  period_end TIMESTAMPTZ NOT NULL,
  used BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (tenant_id, mode, period_start)
);
--bun:split
CREATE TABLE ledger (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  key_id TEXT NOT NULL DEFAULT '',
  mode TEXT NOT NULL,
  period_start TIMESTAMPTZ NOT NULL,
  capability TEXT NOT NULL,
  action TEXT NOT NULL,
  credits BIGINT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX ledger_tenant_period ON ledger (tenant_id, mode, period_start);
--bun:split
CREATE INDEX ledger_tenant_time ON ledger (tenant_id, created_at);
--bun:split
CREATE TABLE sharpen_settings (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants (id),
  stage TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE workouts (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  title TEXT NOT NULL,
  provider TEXT NOT NULL,
  exercise_ref TEXT NOT NULL,
  muscles TEXT NOT NULL DEFAULT '[]',
  equipment TEXT NOT NULL DEFAULT '[]',
  video_available BOOLEAN NOT NULL DEFAULT TRUE,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (tenant_id, provider, exercise_ref)
);
--bun:split
CREATE TABLE provider_settings (
  provider_id TEXT PRIMARY KEY,
  base_url TEXT NOT NULL DEFAULT '',
  key_ciphertext TEXT NOT NULL DEFAULT '',
  updated_by TEXT NOT NULL DEFAULT '',
  updated_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE audit_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  before_state TEXT NOT NULL DEFAULT '',
  after_state TEXT NOT NULL DEFAULT '',
  created_at TIMESTAMPTZ NOT NULL
);
