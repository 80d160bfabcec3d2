-- The recovery worker (docs/rebuild.md "Recovery worker"). One lease row per stream: the product instance that
-- holds it runs the stream's recovery cycles and rebuilds. Acquiring the row from another owner, or after it
-- expired, or after a restart, bumps the fence; every write transaction of the worker re-reads this row FOR UPDATE
-- and commits only while owner, fence and expiry (database clock) still hold.
CREATE TABLE recovery_lease (
    tenant      text        NOT NULL,
    catalog     text        NOT NULL,
    owner       text        NOT NULL,
    fence       bigint      NOT NULL CHECK (fence > 0),
    acquired_at timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant, catalog)
);

-- What the worker last found for a stream, read by GET /v1/projection-completeness. Written by the lease holder's
-- cycles only; a status, not a projection write, so it is not fenced.
CREATE TABLE recovery_status (
    tenant            text        NOT NULL,
    catalog           text        NOT NULL,
    state             text        NOT NULL CHECK (state IN ('OK', 'RETRYING', 'BLOCKED')),
    reason            text,
    failures          integer     NOT NULL DEFAULT 0,
    observed_epoch    bigint,
    observed_boundary bigint,
    verified_at       timestamptz,
    next_attempt_at   timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog)
);

-- The worker lease a rebuild runs under: its writes commit only while this fence holds, and whoever acquires the
-- stream's lease with a newer fence restarts (or fails) the rebuilds left under an older one.
ALTER TABLE rebuild ADD COLUMN worker_owner text, ADD COLUMN worker_fence bigint;
