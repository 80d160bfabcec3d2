-- Issue 31, what readers see: the streams whose history the resolver reports rolled back (GET /v1/streams,
-- "rolledBack"), as the product's stream sweep learnt them. A serving generation of that epoch is refused to public
-- readers (503 HISTORY_ROLLED_BACK) unless it stands exactly at the resolver's restored head (same position and chain
-- digest there: then it holds only history that still exists). One row per stream, of the latest rolled back epoch;
-- removed when the resolver lists that epoch as no longer rolled back. Read by every public read (joined to the
-- serving pointer), so every instance refuses from the moment one instance recorded it.
CREATE TABLE stream_rollback (
    tenant         text        NOT NULL,
    catalog        text        NOT NULL,
    epoch          bigint      NOT NULL CHECK (epoch >= 1),
    cursor         bigint      NOT NULL CHECK (cursor >= 0),
    chain_digest   text        NOT NULL,
    rolled_back_at timestamptz,
    learned_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog)
);
