-- capgate's ledger invariant, to run after a restore (docs/operations.md, "Backup and restore"):
-- every credit period's used total equals the sum of its ledger rows. The answer lists the
-- periods that break it; no rows means the restored database is consistent.
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f deploy/postgres/check-ledger.sql
SELECT p.tenant_id, p.mode, p.period_start, p.used, COALESCE(l.total, 0) AS ledger_total
FROM credit_periods p
LEFT JOIN (
  SELECT tenant_id, mode, period_start, SUM(credits) AS total
  FROM ledger
  GROUP BY tenant_id, mode, period_start
) l ON l.tenant_id = p.tenant_id AND l.mode = p.mode AND l.period_start = p.period_start
WHERE p.used <> COALESCE(l.total, 0)
UNION ALL
-- ledger rows whose period row is missing (a partial restore)
SELECT l.tenant_id, l.mode, l.period_start, NULL, SUM(l.credits)
FROM ledger l
WHERE NOT EXISTS (SELECT 1 FROM credit_periods p
                  WHERE p.tenant_id = l.tenant_id AND p.mode = l.mode AND p.period_start = l.period_start)
GROUP BY l.tenant_id, l.mode, l.period_start;
