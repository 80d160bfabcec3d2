-- Pattern subscriptions (docs/retention.md "Subscriptions"): a consumer registered for every stream of a tenant
-- (catalog '*') or of every tenant (tenant '*' and catalog '*'). The resolver turns a subscription into ordinary
-- retention_consumer rows: one per matching stream that exists when it is registered, and one for each stream
-- opened later, in the transaction that opens the stream's cursor (its first write, or a rotation's new epoch),
-- at durable position 0. Retention and the relay know nothing else about subscriptions.
CREATE TABLE retention_subscription (
    consumer_id    text        NOT NULL,
    -- a tenant id, or '*' for every tenant
    tenant         text        NOT NULL,
    -- always '*' today: a single stream is an ordinary registration
    catalog        text        NOT NULL CHECK (catalog = '*'),
    delivery_url   text,
    registered_by  text        NOT NULL,
    registered_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_id, tenant, catalog)
);
CREATE INDEX retention_subscription_tenant ON retention_subscription (tenant);

-- The subscription registry's lock: one row. Opening a stream takes it FOR SHARE before it reads the subscriptions;
-- registering or removing a subscription takes it FOR UPDATE before it reads the streams. Either the opening
-- commits first (and the registration, waiting for it, then sees the new stream) or the registration does (and the
-- opening, waiting for it, then sees the new subscription): no stream falls between the two.
CREATE TABLE retention_subscription_lock (
    id  integer PRIMARY KEY CHECK (id = 1)
);
INSERT INTO retention_subscription_lock (id) VALUES (1);
