-- Snapshot exports (DESIGN.md steps 3-4, docs/exports.md) and the chain digest at pruned-through, which the
-- catch-up endpoint (step 6) needs to answer a page that starts exactly at P after the row at P was pruned.

-- One export run. Any instance answers GET /v1/exports/{id} from this row; the instance running it refreshes
-- heartbeat_at and the progress columns, and a RUNNING row whose heartbeat stopped is failed by any instance.
CREATE TABLE snapshot_export (
    export_id      uuid        PRIMARY KEY,
    tenant         text        NOT NULL,
    catalog        text        NOT NULL,
    lease_id       uuid        NOT NULL,
    -- the lease's epoch; the snapshot must find the stream's open cursor in this epoch or the export aborts
    epoch          bigint      NOT NULL CHECK (epoch >= 1),
    status         text        NOT NULL CHECK (status IN ('RUNNING', 'READY', 'FAILED', 'ABORTED')),
    -- cursor W and the chain digest at W, read in the export's snapshot
    cursor         bigint      CHECK (cursor >= 0),
    chain_digest   text,
    -- every object of the export lives under this key prefix; the manifest is written last
    object_prefix  text        NOT NULL,
    manifest_key   text,
    error          text,
    phase          text        NOT NULL DEFAULT 'QUEUED',
    rows_written   bigint      NOT NULL DEFAULT 0,
    bytes_written  bigint      NOT NULL DEFAULT 0,
    requested_by   text        NOT NULL,
    instance       text        NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    heartbeat_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at    timestamptz,
    -- set when a newer READY export pushed this one out of the last N kept; its objects are deleted
    retired_at     timestamptz
);
CREATE INDEX snapshot_export_kept ON snapshot_export (tenant, catalog, finished_at DESC)
    WHERE status = 'READY' AND retired_at IS NULL;
CREATE INDEX snapshot_export_running ON snapshot_export (heartbeat_at) WHERE status = 'RUNNING';

-- The chain digest of the highest outbox row ever deleted per (stream, epoch). The pruner deletes only prefixes
-- and advances pruned_through to the last deleted position in the same transaction, so after a prune this row
-- holds the digest at P. Kept by a statement trigger so the retention code needs no change.
CREATE TABLE outbox_pruned_digest (
    tenant        text   NOT NULL,
    catalog       text   NOT NULL,
    epoch         bigint NOT NULL,
    position      bigint NOT NULL CHECK (position >= 1),
    chain_digest  text   NOT NULL,
    PRIMARY KEY (tenant, catalog, epoch)
);

CREATE FUNCTION outbox_record_pruned_digest() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
BEGIN
    INSERT INTO outbox_pruned_digest AS d (tenant, catalog, epoch, position, chain_digest)
    SELECT DISTINCT ON (tenant, catalog, epoch) tenant, catalog, epoch, position, chain_digest
      FROM gone
     ORDER BY tenant, catalog, epoch, position DESC
    ON CONFLICT (tenant, catalog, epoch) DO UPDATE
       SET position = excluded.position, chain_digest = excluded.chain_digest
     WHERE d.position < excluded.position;
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_pruned_digest
    AFTER DELETE ON outbox
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_record_pruned_digest();
