-- Idempotency keys (docs/writes.md "Idempotent writes", issue 31 item 2). A write sent with an Idempotency-Key
-- header stores its key here in the transaction that commits the write, so the key exists exactly when the write
-- does: a retry with the same key and the same request answers the stored result and writes nothing; the same key
-- with another request is refused (422 IDEMPOTENCY_KEY_REUSED). Keys are scoped per stream, per token identity and
-- per kind of write ('write': the cursor-locked writes of …/items, …/mappings, …/policies, …/releases and
-- …/transactions, looked up under the cursor lock; 'review-case' and 'decision': review writes, claimed by the
-- primary key). The pruner deletes keys older than resolver.idempotency.window, oldest first, in batches.
CREATE TABLE idempotency_key (
    tenant          text        NOT NULL,
    catalog         text        NOT NULL,
    identity        text        NOT NULL,
    scope           text        NOT NULL,
    idempotency_key text        NOT NULL,
    -- SHA-256 (hex) of the request as the resolver understood it: method, path, query and body
    request_sha256  text        NOT NULL,
    -- the logical transaction the key produced (scope 'write', and a decision that accepted changes)
    transaction_id  uuid,
    epoch           bigint,
    first_position  bigint,
    last_position   bigint,
    revision        integer,
    -- the original answer's JSON, for writes whose answer is not a position range (review cases, decisions)
    answer          text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog, identity, scope, idempotency_key)
);
CREATE INDEX idempotency_key_created_at ON idempotency_key (created_at);
