-- The request log's writer writes every index on each logged call (issue 34: the log must cost
-- the hot path nothing measurable). Two of them go:
-- * the time index: pruning finds its boundary by a binary search over the ids, which follow
--   time (tenants.RequestLog.Prune);
-- * the full status index becomes a partial one over errors (status 400 and above): finding a
--   tenant's errors is what it is for, and a success no longer writes it. A filter on a success
--   status walks the tenant's time index, as the key and capability filters do.
DROP INDEX request_log_time;
--bun:split
DROP INDEX request_log_tenant_status;
--bun:split
CREATE INDEX request_log_tenant_errors ON request_log (tenant_id, status, at_us) WHERE status >= 400;
