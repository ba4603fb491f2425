-- Every ledger row carries the key the group-commit writer gave its call's commit, unique: when a
-- batch's COMMIT fails or its reply is lost, the writer looks the batch's keys up to learn what
-- committed, and a call written again can never be charged twice. Rows written before this
-- migration keep NULL (a unique index allows many).
ALTER TABLE ledger ADD COLUMN commit_key TEXT;
--bun:split
CREATE UNIQUE INDEX ledger_commit_key ON ledger (commit_key);
--bun:split
-- One row that /readyz rewrites: readiness fails when this instance cannot commit (the database
-- unreachable, or its writes failing, for example a full disk).
CREATE TABLE readiness_probe (
  id INTEGER PRIMARY KEY,
  checked_at TIMESTAMPTZ NOT NULL
);
