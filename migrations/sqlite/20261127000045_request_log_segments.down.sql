-- Back to a row per call. The segments' entries are not converted back (their encoding is
-- binary): going down loses the request log, not billing (the ledger is untouched).
CREATE TABLE request_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  key_id TEXT NOT NULL DEFAULT '',
  mode TEXT NOT NULL DEFAULT '',
  via TEXT NOT NULL DEFAULT '',
  method TEXT NOT NULL DEFAULT '',
  route TEXT NOT NULL DEFAULT '',
  capability TEXT NOT NULL DEFAULT '',
  action TEXT NOT NULL DEFAULT '',
  status INTEGER NOT NULL,
  error_code TEXT NOT NULL DEFAULT '',
  error_message TEXT NOT NULL DEFAULT '',
  credits INTEGER NOT NULL DEFAULT 0,
  latency_us INTEGER NOT NULL DEFAULT 0,
  request_id TEXT NOT NULL DEFAULT '',
  at_us INTEGER NOT NULL
);
--bun:split
CREATE INDEX request_log_tenant_time ON request_log (tenant_id, at_us, id);
--bun:split
CREATE INDEX request_log_tenant_request ON request_log (tenant_id, request_id);
--bun:split
CREATE INDEX request_log_tenant_errors ON request_log (tenant_id, status, at_us) WHERE status >= 400;
--bun:split
DROP TABLE request_log_usage;
--bun:split
DROP TABLE request_log_ids;
--bun:split
DROP TABLE request_log_segments;
