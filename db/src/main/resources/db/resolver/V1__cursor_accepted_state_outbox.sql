-- The resolver's write model. One stream is one (tenant, catalog); positions are per (stream, epoch).
-- Every projection-affecting write locks the stream's open cursor row FOR UPDATE before anything else,
-- bumps position, and writes current rows, revisions and outbox rows in the same transaction.

CREATE TABLE stream_cursor (
    tenant        text        NOT NULL,
    catalog       text        NOT NULL,
    epoch         bigint      NOT NULL CHECK (epoch >= 1),
    position      bigint      NOT NULL DEFAULT 0 CHECK (position >= 0),
    chain_digest  text        NOT NULL DEFAULT repeat('0', 64),
    fenced_at     timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, epoch)
);
-- at most one open (writable) epoch per stream
CREATE UNIQUE INDEX stream_cursor_open ON stream_cursor (tenant, catalog) WHERE fenced_at IS NULL;

-- Current accepted state: one row per aggregate, its latest revision and the (epoch, position) that made it.
CREATE TABLE item (
    tenant      text    NOT NULL,
    catalog     text    NOT NULL,
    item_id     text    NOT NULL,
    revision    integer NOT NULL CHECK (revision >= 1),
    attributes  jsonb   NOT NULL,
    deleted     boolean NOT NULL DEFAULT false,
    epoch       bigint  NOT NULL,
    position    bigint  NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, item_id)
);

CREATE TABLE mapping (
    tenant      text    NOT NULL,
    catalog     text    NOT NULL,
    mapping_id  text    NOT NULL,
    revision    integer NOT NULL CHECK (revision >= 1),
    source      text    NOT NULL,
    target      text    NOT NULL,
    epoch       bigint  NOT NULL,
    position    bigint  NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, mapping_id)
);

CREATE TABLE policy (
    tenant      text    NOT NULL,
    catalog     text    NOT NULL,
    policy_id   text    NOT NULL,
    revision    integer NOT NULL CHECK (revision >= 1),
    rules       jsonb   NOT NULL,
    epoch       bigint  NOT NULL,
    position    bigint  NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, policy_id)
);

CREATE TABLE release (
    tenant      text    NOT NULL,
    catalog     text    NOT NULL,
    release_id  text    NOT NULL,
    revision    integer NOT NULL CHECK (revision >= 1),
    visibility  text    NOT NULL CHECK (visibility IN ('PRIVATE', 'PUBLIC')),
    items       jsonb   NOT NULL,
    epoch       bigint  NOT NULL,
    position    bigint  NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, release_id)
);

-- Permanent revision history of every aggregate; content is the event payload that produced the revision,
-- so state at any position W is "the latest revision at or below W" of each aggregate.
CREATE TABLE accepted_revision (
    tenant          text    NOT NULL,
    catalog         text    NOT NULL,
    aggregate_type  text    NOT NULL CHECK (aggregate_type IN ('item', 'mapping', 'policy', 'release')),
    aggregate_id    text    NOT NULL,
    revision        integer NOT NULL CHECK (revision >= 1),
    content         jsonb   NOT NULL,
    deleted         boolean NOT NULL DEFAULT false,
    epoch           bigint  NOT NULL,
    position        bigint  NOT NULL,
    event_id        uuid    NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, aggregate_type, aggregate_id, revision)
);
CREATE INDEX accepted_revision_by_position ON accepted_revision (tenant, catalog, epoch, position);

-- Transactional outbox: one row per integration event. wire is the exact stored JSON text (never
-- re-serialized); chain_digest = sha256(previous digest || '\n' || wire).
CREATE TABLE outbox (
    tenant               text        NOT NULL,
    catalog              text        NOT NULL,
    epoch                bigint      NOT NULL,
    position             bigint      NOT NULL CHECK (position >= 1),
    event_id             uuid        NOT NULL UNIQUE,
    transaction_id       uuid        NOT NULL,
    transaction_ordinal  integer     NOT NULL CHECK (transaction_ordinal >= 0),
    transaction_count    integer     NOT NULL CHECK (transaction_count >= 1),
    event_type           text        NOT NULL,
    aggregate_type       text        NOT NULL,
    aggregate_id         text        NOT NULL,
    revision             integer,
    wire                 text        NOT NULL,
    chain_digest         text        NOT NULL,
    occurred_at          timestamptz NOT NULL,
    published_at         timestamptz,
    PRIMARY KEY (tenant, catalog, epoch, position)
);
CREATE INDEX outbox_transaction ON outbox (transaction_id);
