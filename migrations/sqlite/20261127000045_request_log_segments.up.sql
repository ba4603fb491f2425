-- The request log as segments (issue 34: the log must cost the hot path nothing measurable).
-- A row per call wrote three B-trees for every call; the writer now stores each batch as one row
-- per tenant holding its entries encoded and compressed (tenants/requestlog_segment.go):
-- * request_log_segments: a tenant's entries arrived within ten minutes, found by their latest
--   arrival (the listing walks it newest first) and pruned by it;
-- * request_log_ids: the request ids the lookup cannot find by the time they carry (those a
--   client chose), keyed by segment id << 12 | position, so pruning deletes a range;
-- * request_log_usage: calls, errors, credits and latency summed per UTC hour, capability and key
--   as each batch is written, read by GET /v1/usage.
-- The rows of the old table are converted: entries into JSON segments (a segment per tenant, per
-- thousand ids and per ten minutes, numbered by its first old id so that segments keep the old
-- order), every request id into request_log_ids, and their sums into request_log_usage.
CREATE TABLE request_log_segments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  min_at_us INTEGER NOT NULL,
  max_at_us INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  data BLOB NOT NULL
);
--bun:split
CREATE INDEX request_log_segments_tenant ON request_log_segments (tenant_id, max_at_us, id);
--bun:split
CREATE INDEX request_log_segments_age ON request_log_segments (max_at_us);
--bun:split
CREATE TABLE request_log_ids (
  entry INTEGER PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  request_id TEXT NOT NULL
);
--bun:split
CREATE INDEX request_log_ids_lookup ON request_log_ids (tenant_id, request_id);
--bun:split
CREATE TABLE request_log_usage (
  tenant_id TEXT NOT NULL,
  hour_us INTEGER NOT NULL,
  capability TEXT NOT NULL,
  key_id TEXT NOT NULL,
  calls INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  credits INTEGER NOT NULL,
  latency_us INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, hour_us, capability, key_id)
);
--bun:split
CREATE INDEX request_log_usage_age ON request_log_usage (hour_us);
--bun:split
INSERT INTO request_log_segments (id, tenant_id, min_at_us, max_at_us, entries, errors, data)
SELECT MIN(id), tenant_id, MIN(at_us), MAX(at_us), COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END),
  CAST(json_group_array(json_array(at_us, key_id, mode, via, method, route, capability, action, status, error_code,
    error_message, credits, latency_us, request_id)) AS BLOB)
FROM request_log GROUP BY tenant_id, id / 1000, at_us / 600000000;
--bun:split
INSERT INTO request_log_ids (entry, tenant_id, request_id)
SELECT s.id * 4096 + (r.id - s.id), r.tenant_id, r.request_id
FROM request_log r JOIN request_log_segments s
  ON s.tenant_id = r.tenant_id AND s.id / 1000 = r.id / 1000 AND s.min_at_us / 600000000 = r.at_us / 600000000
WHERE r.request_id <> '';
--bun:split
INSERT INTO request_log_usage (tenant_id, hour_us, capability, key_id, calls, errors, credits, latency_us)
SELECT tenant_id, at_us / 3600000000 * 3600000000, capability, key_id, COUNT(*),
  SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), SUM(credits), SUM(latency_us)
FROM request_log GROUP BY tenant_id, at_us / 3600000000, capability, key_id;
--bun:split
DROP TABLE request_log;
