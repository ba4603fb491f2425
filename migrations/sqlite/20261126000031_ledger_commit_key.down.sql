DROP INDEX ledger_commit_key;
--bun:split
ALTER TABLE ledger DROP COLUMN commit_key;
