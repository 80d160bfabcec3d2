-- Retention control (DESIGN.md steps 2 and 10): how far each (stream, epoch) outbox is pruned, the registered
-- consumers and the rebuild leases that pin it.
--
-- stream_retention is deliberately separate from stream_cursor: the pruner and every retention operation lock
-- and update only this row (the retention-control lock), so pruning never waits for or blocks the cursor row
-- that writers lock FOR UPDATE on every write.
CREATE TABLE stream_retention (
    tenant          text        NOT NULL,
    catalog         text        NOT NULL,
    epoch           bigint      NOT NULL CHECK (epoch >= 1),
    -- every outbox row of (tenant, catalog, epoch) at or below pruned_through may be gone; it only grows
    pruned_through  bigint      NOT NULL DEFAULT 0 CHECK (pruned_through >= 0),
    pruned_at       timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, epoch)
);

-- A registered live reader of one stream (a product instance). Its durable_position pins retention of its
-- epoch until an operator deregisters it; it is never dropped automatically.
CREATE TABLE retention_consumer (
    consumer_id       text        NOT NULL,
    tenant            text        NOT NULL,
    catalog           text        NOT NULL,
    epoch             bigint      NOT NULL CHECK (epoch >= 1),
    durable_position  bigint      NOT NULL CHECK (durable_position >= 0),
    -- where the outbox relay pushes deliveries; null for a consumer that only pulls
    delivery_url      text,
    -- the token entry that registered it; a consumer-role token may only act for consumers it registered
    registered_by     text        NOT NULL,
    registered_at     timestamptz NOT NULL DEFAULT now(),
    progress_at       timestamptz,
    PRIMARY KEY (consumer_id, tenant, catalog)
);
CREATE INDEX retention_consumer_stream ON retention_consumer (tenant, catalog, epoch);

-- A renewable, expiring pin. Alive means released_at IS NULL AND expires_at > the database clock; expires_at is
-- always computed by the database, never by a service JVM.
CREATE TABLE retention_lease (
    lease_id            uuid        PRIMARY KEY,
    tenant              text        NOT NULL,
    catalog             text        NOT NULL,
    epoch               bigint      NOT NULL CHECK (epoch >= 1),
    pin                 bigint      NOT NULL CHECK (pin >= 0),
    owner               text        NOT NULL,
    created_by          text        NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at          timestamptz NOT NULL,
    renewed_at          timestamptz,
    released_at         timestamptz,
    -- set once, by whichever instance first notices the expiry, so resolver_leases_expired_total counts each
    -- expired lease exactly once across instances
    expiry_recorded_at  timestamptz
);
CREATE INDEX retention_lease_open ON retention_lease (tenant, catalog, epoch) WHERE released_at IS NULL;
