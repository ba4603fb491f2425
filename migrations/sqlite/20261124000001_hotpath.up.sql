-- Credit leases: credits an instance holds from a period (used counts only settled credits,
-- leased what live leases still hold; used + leased never exceeds the cap).
ALTER TABLE credit_periods ADD COLUMN leased BIGINT NOT NULL DEFAULT 0;
--bun:split
CREATE TABLE credit_leases (
  id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  period_start TIMESTAMP NOT NULL,
  amount BIGINT NOT NULL,
  spent BIGINT NOT NULL DEFAULT 0,
  expires_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX credit_leases_expires ON credit_leases (expires_at);
--bun:split
-- One row per search session: its records are encoded together in data. The record key (the
-- first 12 characters of the session id's random part, also inside every record id) is the only
-- key: sessions and records are both found by it, so one index is kept up to date, not two.
CREATE TABLE searches (
  record_key TEXT PRIMARY KEY,
  id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  capability TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  data BLOB NOT NULL
);
--bun:split
CREATE INDEX searches_expires ON searches (expires_at);
--bun:split
DROP TABLE session_records;
--bun:split
DROP TABLE search_sessions;
