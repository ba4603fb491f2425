-- The request log (issue 34): one row per call to /v1 and /mcp whose tenant is known, errors
-- included, written in batches off the hot path and pruned after the retention
-- (GATEWAY_REQUEST_LOG_RETENTION). Times are Unix microseconds (UTC) so that ranges, the cursor
-- and grouping by day are integer arithmetic on both dialects.
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
-- No index per key or capability: every index is written on each logged call, and those two
-- filters are served by walking the tenant's time index (the log is read newest first, a page
-- at a time). Status keeps its index: finding a tenant's errors is the log's main use.
--bun:split
CREATE INDEX request_log_tenant_status ON request_log (tenant_id, status, at_us);
--bun:split
CREATE INDEX request_log_tenant_request ON request_log (tenant_id, request_id);
--bun:split
CREATE INDEX request_log_time ON request_log (at_us);
