DROP TABLE readiness_probe;
--bun:split
DROP INDEX ledger_commit_key;
--bun:split
ALTER TABLE ledger DROP COLUMN commit_key;
