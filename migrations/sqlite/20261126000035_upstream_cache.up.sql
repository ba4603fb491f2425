-- The shared upstream cache: a plan's price of a cache hit (a percentage of the capability's
-- charge; 0 = free) and, per ledger row, whether the cache gave the answer and what it saved.
ALTER TABLE plans ADD COLUMN cache_hit_percent INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE ledger ADD COLUMN cache TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE ledger ADD COLUMN credits_saved BIGINT NOT NULL DEFAULT 0;
