-- Outbox relay: one delivery cursor per (consumer, stream, epoch), separate from the consumer's durable
-- progress (delivery is not progress). A claim (owner + expiry, database time) lets exactly one resolver
-- instance deliver to a consumer at a time; an expired claim may be taken over.
CREATE TABLE relay_delivery (
    consumer_id        text        NOT NULL,
    tenant             text        NOT NULL,
    catalog            text        NOT NULL,
    epoch              bigint      NOT NULL,
    delivered_through  bigint      NOT NULL DEFAULT 0 CHECK (delivered_through >= 0),
    failures           integer     NOT NULL DEFAULT 0,
    next_attempt_at    timestamptz,
    last_error         text,
    last_delivered_at  timestamptz,
    claimed_by         text,
    claim_until        timestamptz,
    PRIMARY KEY (consumer_id, tenant, catalog, epoch)
);

-- finding what is not yet published must not scan the whole retained outbox
CREATE INDEX outbox_unpublished ON outbox (tenant, catalog, epoch, position) WHERE published_at IS NULL;
