-- No query reads the outbox by transaction id (catch-up, relay, pruning and exports all read by stream and
-- position), yet every write paid to maintain this index: one more B-tree insert per event on the write path and
-- a large share of a bootstrap import's index maintenance. A lookup by transaction id, if one is ever needed,
-- gets its index back in the migration that adds the lookup.
DROP INDEX IF EXISTS outbox_transaction;
