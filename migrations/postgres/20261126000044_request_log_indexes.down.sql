DROP INDEX request_log_tenant_errors;
--bun:split
CREATE INDEX request_log_tenant_status ON request_log (tenant_id, status, at_us);
--bun:split
CREATE INDEX request_log_time ON request_log (at_us);
