-- Product projections, organised in generations. A generation is one isolated copy of every projection table of
-- one stream (tenant, catalog) in one history epoch; exactly one generation per stream serves, named by
-- serving_generation. Every per-generation table is LIST-partitioned by generation_id, one partition per
-- generation, so a rebuild can bulk-load a shadow generation into its own tables (COPY, indexes after the load,
-- then ATTACH) and retire an old one by detaching and dropping its partitions, while live writes and public reads
-- of other generations go on: ATTACH and DETACH … CONCURRENTLY take only SHARE UPDATE EXCLUSIVE on the parents.

-- One row per generation. The generation's cursor lives here, so the live applier and a shadow catch-up run the
-- same code over different rows; the durable live cursor of a stream is the cursor of its serving generation.
CREATE TABLE generation (
    generation_id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant                 text        NOT NULL,
    catalog                text        NOT NULL,
    epoch                  bigint      NOT NULL CHECK (epoch >= 1),
    status                 text        NOT NULL CHECK (status IN ('BUILDING', 'SERVING', 'RETIRED')),
    -- the position the generation was loaded at (0 for an empty start); nothing at or below it is in inbox
    start_position         bigint      NOT NULL DEFAULT 0 CHECK (start_position >= 0),
    -- greatest position whose chain digest is verified; events above it are held PENDING
    chain_position         bigint      NOT NULL DEFAULT 0 CHECK (chain_position >= 0),
    chain_digest           text        NOT NULL DEFAULT repeat('0', 64),
    -- contiguous processed position: every position at or below it is APPLIED or IGNORED (never PARKED);
    -- this is the progress a live generation reports to the resolver
    applied_position       bigint      NOT NULL DEFAULT 0 CHECK (applied_position >= 0),
    highest_seen_position  bigint      NOT NULL DEFAULT 0 CHECK (highest_seen_position >= 0),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    CHECK (applied_position <= chain_position)
);
CREATE INDEX generation_stream ON generation (tenant, catalog);

-- The pointer readers and the live applier follow. Cutover is one UPDATE of this row; the live applier locks it
-- FOR UPDATE for the length of each delivery batch, so a cutover waits for the batch in flight.
CREATE TABLE serving_generation (
    tenant         text        NOT NULL,
    catalog        text        NOT NULL,
    generation_id  bigint      NOT NULL UNIQUE REFERENCES generation (generation_id),
    switched_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog)
);

-- Accepted state, copied: current rows (deleted items stay, with their revision) ...
CREATE TABLE item (
    generation_id  bigint  NOT NULL,
    item_id        text    NOT NULL,
    revision       integer NOT NULL CHECK (revision >= 1),
    attributes     jsonb   NOT NULL,
    deleted        boolean NOT NULL DEFAULT false,
    epoch          bigint  NOT NULL,
    position       bigint  NOT NULL,
    PRIMARY KEY (generation_id, item_id)
) PARTITION BY LIST (generation_id);

CREATE TABLE mapping (
    generation_id  bigint  NOT NULL,
    mapping_id     text    NOT NULL,
    revision       integer NOT NULL CHECK (revision >= 1),
    source         text    NOT NULL,
    target         text    NOT NULL,
    epoch          bigint  NOT NULL,
    position       bigint  NOT NULL,
    PRIMARY KEY (generation_id, mapping_id)
) PARTITION BY LIST (generation_id);

CREATE TABLE policy (
    generation_id  bigint  NOT NULL,
    policy_id      text    NOT NULL,
    revision       integer NOT NULL CHECK (revision >= 1),
    rules          jsonb   NOT NULL,
    epoch          bigint  NOT NULL,
    position       bigint  NOT NULL,
    PRIMARY KEY (generation_id, policy_id)
) PARTITION BY LIST (generation_id);

CREATE TABLE release (
    generation_id  bigint  NOT NULL,
    release_id     text    NOT NULL,
    revision       integer NOT NULL CHECK (revision >= 1),
    visibility     text    NOT NULL CHECK (visibility IN ('PRIVATE', 'PUBLIC')),
    items          jsonb   NOT NULL,
    epoch          bigint  NOT NULL,
    position       bigint  NOT NULL,
    PRIMARY KEY (generation_id, release_id)
) PARTITION BY LIST (generation_id);

-- ... the item revisions named by each release's current revision (one row per item, highest revision when a
-- release lists an item twice) ...
CREATE TABLE release_item (
    generation_id  bigint  NOT NULL,
    release_id     text    NOT NULL,
    item_id        text    NOT NULL,
    revision       integer NOT NULL CHECK (revision >= 1),
    PRIMARY KEY (generation_id, release_id, item_id)
) PARTITION BY LIST (generation_id);
CREATE INDEX release_item_by_item ON release_item (generation_id, item_id);

-- ... and the revision history of every aggregate (content = the payload that made the revision), like the
-- resolver's accepted_revision. The public view reads item attributes at the revision a release names from here.
CREATE TABLE aggregate_revision (
    generation_id   bigint  NOT NULL,
    aggregate_type  text    NOT NULL CHECK (aggregate_type IN ('item', 'mapping', 'policy', 'release')),
    aggregate_id    text    NOT NULL,
    revision        integer NOT NULL CHECK (revision >= 1),
    content         jsonb   NOT NULL,
    deleted         boolean NOT NULL DEFAULT false,
    epoch           bigint  NOT NULL,
    position        bigint  NOT NULL,
    event_id        uuid    NOT NULL,
    PRIMARY KEY (generation_id, aggregate_type, aggregate_id, revision)
) PARTITION BY LIST (generation_id);

-- The public view: an item is public, as the revision its latest PUBLIC release names, when some release whose
-- current revision is PUBLIC names it and the item's current revision is not a deletion. "Latest" is the release
-- whose current revision has the greatest (epoch, position). document is the search document over the public
-- attributes (english configuration; name weighted A, every string attribute B, the item id C).
CREATE TABLE public_item (
    generation_id     bigint   NOT NULL,
    item_id           text     NOT NULL,
    revision          integer  NOT NULL,
    release_id        text     NOT NULL,
    release_epoch     bigint   NOT NULL,
    release_position  bigint   NOT NULL,
    attributes        jsonb    NOT NULL,
    document          tsvector NOT NULL,
    PRIMARY KEY (generation_id, item_id)
) PARTITION BY LIST (generation_id);
CREATE INDEX public_item_document ON public_item USING gin (document);

-- Inbox: the outcome of every processed position (APPLIED or IGNORED) with its verified chain digest. Positions
-- at or below the generation's start_position came from the export and have no row.
CREATE TABLE inbox (
    generation_id  bigint      NOT NULL,
    position       bigint      NOT NULL CHECK (position >= 1),
    event_id       uuid        NOT NULL,
    event_type     text        NOT NULL,
    outcome        text        NOT NULL CHECK (outcome IN ('APPLIED', 'IGNORED')),
    chain_digest   text        NOT NULL,
    processed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (generation_id, position)
) PARTITION BY LIST (generation_id);

-- Events received but not yet processed. PENDING: arrived before its predecessor, digest not verified yet.
-- PARKED: digest verified, waiting for the aggregate revision named by wait_*; the contiguous processed position
-- never passes a PARKED event.
CREATE TABLE held_event (
    generation_id   bigint      NOT NULL,
    position        bigint      NOT NULL CHECK (position >= 1),
    state           text        NOT NULL CHECK (state IN ('PENDING', 'PARKED')),
    wire            text        NOT NULL,
    chain_digest    text        NOT NULL,
    event_id        uuid        NOT NULL,
    event_type      text        NOT NULL,
    wait_type       text,
    wait_id         text,
    wait_revision   integer,
    received_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (generation_id, position),
    CHECK ((state = 'PARKED') = (wait_type IS NOT NULL))
) PARTITION BY LIST (generation_id);
CREATE INDEX held_event_waiting ON held_event (generation_id, wait_type, wait_id, wait_revision)
    WHERE state = 'PARKED';

-- Deliveries of an epoch older than the serving generation's: terminally ignored, audited here.
CREATE TABLE old_epoch_delivery (
    delivery_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant         text        NOT NULL,
    catalog        text        NOT NULL,
    epoch          bigint      NOT NULL,
    position       bigint      NOT NULL,
    event_id       uuid        NOT NULL,
    event_type     text        NOT NULL,
    serving_epoch  bigint      NOT NULL,
    received_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX old_epoch_delivery_stream ON old_epoch_delivery (tenant, catalog, received_at);

-- The per-generation tables, in the order a generation's partitions are created.
CREATE FUNCTION generation_tables() RETURNS text[]
    LANGUAGE sql IMMUTABLE
AS $$
    SELECT ARRAY['item', 'mapping', 'policy', 'release', 'release_item', 'aggregate_revision', 'public_item',
                 'inbox', 'held_event']
$$;

-- Creates the (empty) partitions of generation g: a plain table shaped like the parent, a CHECK that matches the
-- partition bound (so ATTACH skips its validation scan), then ATTACH, which builds the parent's indexes on it.
-- Unlike CREATE TABLE … PARTITION OF, this never takes an ACCESS EXCLUSIVE lock on the parents, so live batches
-- and public reads of other streams are not blocked. A rebuild may instead COPY into the plain tables and build
-- their indexes before attaching.
CREATE FUNCTION create_generation_partitions(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
    part text;
BEGIN
    FOREACH t IN ARRAY generation_tables() LOOP
        part := t || '_g' || g;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (generation_id = %s)', part, part || '_bound', g);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', t, part, g);
    END LOOP;
END
$$;
