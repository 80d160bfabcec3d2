-- The ripe limit (RetainedOutboxRepository.RIPE_LIMIT) asks for the lowest batch published within min-age. Through
-- the primary key that walks every older batch first, and a pruner blocked for a day (a consumer that stopped)
-- leaves ~432,000 of them per stream at one batch per 0.2 s: 188 ms per status read or prune. By time it reads
-- only the batches of the last min-age.
CREATE INDEX outbox_publish_time ON outbox_publish (tenant, catalog, epoch, published_at) INCLUDE (through);
