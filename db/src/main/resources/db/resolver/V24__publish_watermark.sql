-- Published marks without per-row outbox updates (issue 22). Published rows always form a prefix per
-- (tenant, catalog, epoch), so the relay records each publish batch as one row here instead of updating every
-- outbox row (a non-HOT update: published_at was in the predicate of the partial index outbox_unpublished).
--
-- A batch log rather than a single watermark, because retention's min-age counts from the time an event was
-- published: the row (through, published_at) says every position <= through was published at published_at at
-- the latest. The watermark is max(through); the ripe limit for a cutoff is max(through) over rows published at
-- or before the cutoff. through only grows with published_at (the relay inserts only above the watermark), and
-- the pruner deletes rows at or below P except the newest, so the log stays small.
CREATE TABLE outbox_publish (
    tenant        text        NOT NULL,
    catalog       text        NOT NULL,
    epoch         bigint      NOT NULL,
    through       bigint      NOT NULL CHECK (through >= 1),
    published_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant, catalog, epoch, through)
);

-- Backfill conservatively: each published row's running maximum of published_at (in position order) bounds its
-- own published_at from above, so a log row (max position, max running maximum) per minute of running maximum
-- never makes a row ripe earlier than published_at did. Only the published prefix (below the first unpublished
-- row) is carried over; a published row above an unpublished one was not prunable before either.
INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
SELECT tenant, catalog, epoch, max(position), max(running)
  FROM (SELECT o.tenant, o.catalog, o.epoch, o.position,
               max(o.published_at) OVER (PARTITION BY o.tenant, o.catalog, o.epoch ORDER BY o.position) AS running
          FROM outbox o
         WHERE o.published_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM outbox u
                            WHERE u.tenant = o.tenant AND u.catalog = o.catalog AND u.epoch = o.epoch
                              AND u.published_at IS NULL AND u.position < o.position)) t
 GROUP BY tenant, catalog, epoch, date_trunc('minute', running);

-- Epochs whose retained outbox is empty were published through their cursor (every row was pruned, and only
-- published rows are pruned): that is what the relay read as published-through before. Nothing there to ripen.
INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
SELECT c.tenant, c.catalog, c.epoch, c.position, now()
  FROM stream_cursor c
 WHERE c.position >= 1
   AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.tenant = c.tenant AND o.catalog = c.catalog AND o.epoch = c.epoch)
   AND NOT EXISTS (SELECT 1 FROM outbox_publish p
                    WHERE p.tenant = c.tenant AND p.catalog = c.catalog AND p.epoch = c.epoch);

DROP INDEX outbox_unpublished;
ALTER TABLE outbox DROP COLUMN published_at;
