ALTER TABLE ledger DROP COLUMN credits_saved;
--bun:split
ALTER TABLE ledger DROP COLUMN cache;
--bun:split
ALTER TABLE plans DROP COLUMN cache_hit_percent;
