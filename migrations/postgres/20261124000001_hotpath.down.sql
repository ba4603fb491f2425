DROP TABLE searches;
--bun:split
DROP TABLE credit_leases;
--bun:split
ALTER TABLE credit_periods DROP COLUMN leased;

--bun:split
CREATE TABLE search_sessions (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  capability TEXT NOT NULL,
  query TEXT NOT NULL,
  next_state TEXT NOT NULL DEFAULT '',
  has_more BOOLEAN NOT NULL DEFAULT FALSE,
  generation INTEGER NOT NULL DEFAULT 0,
  local_offset INTEGER NOT NULL DEFAULT 0,
  local_total INTEGER NOT NULL DEFAULT 0,
  filters TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '[]',
  version INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX search_sessions_expires ON search_sessions (expires_at);
--bun:split
CREATE TABLE session_records (
  id TEXT PRIMARY KEY,
  search_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  capability TEXT NOT NULL,
  generation INTEGER NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL,
  ref TEXT NOT NULL DEFAULT '',
  stored TEXT NOT NULL DEFAULT '',
  actions TEXT NOT NULL DEFAULT '',
  expires_at TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX session_records_page ON session_records (search_id, generation, position);
--bun:split
CREATE INDEX session_records_expires ON session_records (expires_at);
