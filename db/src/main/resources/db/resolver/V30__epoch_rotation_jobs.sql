-- Fleet epoch rotations (docs/epochs.md "Fleet rotation"): one job row per POST /v1/epochs/rotations and one row per
-- stream of its scope, written when the job is created. Any instance runs a RUNNING job whose claim (owner + expiry,
-- database time) is free or expired; each batch locks the pending rows it rotates (FOR UPDATE SKIP LOCKED), so two
-- instances never rotate one stream of a job twice, and marks them in the transaction that rotates them.
CREATE TABLE epoch_rotation (
    rotation_id      uuid        PRIMARY KEY,
    reason           text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    -- the scope as asked ({"all":true}, {"tenant":…}, {"streams":[…]}) and its canonical text (RotationScope.key)
    scope            jsonb       NOT NULL,
    scope_key        text        NOT NULL,
    requested_by     text        NOT NULL,
    status           text        NOT NULL CHECK (status IN ('RUNNING', 'DONE', 'FAILED')),
    streams          integer     NOT NULL CHECK (streams >= 0),
    rotated          integer     NOT NULL DEFAULT 0 CHECK (rotated >= 0),
    failed           integer     NOT NULL DEFAULT 0 CHECK (failed >= 0),
    -- why the job stopped with streams left (maintenance turned off with force)
    error            text,
    claimed_by       text,
    claim_until      timestamptz,
    started_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at      timestamptz,
    CHECK ((status = 'RUNNING') = (finished_at IS NULL))
);
-- one job at a time: a second call of the same scope answers the running one, another scope waits for it
CREATE UNIQUE INDEX epoch_rotation_one_running ON epoch_rotation ((true)) WHERE status = 'RUNNING';

-- The Idempotency-Keys that answered a job: the one that created it, and each one sent with the same scope while it
-- ran (answered with the running job), so a retry of any of them answers that job, never a new one. request_sha256 is
-- of the request the key came with; another request under the key is refused.
CREATE TABLE epoch_rotation_key (
    requested_by     text NOT NULL,
    idempotency_key  text NOT NULL,
    request_sha256   text NOT NULL,
    rotation_id      uuid NOT NULL REFERENCES epoch_rotation (rotation_id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (requested_by, idempotency_key)
);

CREATE TABLE epoch_rotation_stream (
    rotation_id           uuid        NOT NULL REFERENCES epoch_rotation (rotation_id),
    tenant                text        NOT NULL,
    catalog               text        NOT NULL,
    -- NULL while pending
    outcome               text        CHECK (outcome IN ('ROTATED', 'FAILED')),
    -- the epoch issued, and where it starts (the fenced epoch, its restored position and the digest there)
    epoch                 bigint,
    starts_from_epoch     bigint,
    starts_from_position  bigint,
    starts_from_digest    text,
    error                 text,
    finished_at           timestamptz,
    PRIMARY KEY (rotation_id, tenant, catalog),
    CHECK ((outcome IS NULL) = (finished_at IS NULL)),
    CHECK (outcome IS DISTINCT FROM 'ROTATED' OR epoch IS NOT NULL),
    CHECK (outcome IS DISTINCT FROM 'FAILED' OR error IS NOT NULL)
);
-- what is left of a job, in (tenant, catalog) order: the batches' read
CREATE INDEX epoch_rotation_stream_pending ON epoch_rotation_stream (rotation_id, tenant, catalog)
    WHERE outcome IS NULL;
-- a single-stream rotation or reset asks whether a running job still has the stream to rotate
CREATE INDEX epoch_rotation_stream_by_stream ON epoch_rotation_stream (tenant, catalog) WHERE outcome IS NULL;
