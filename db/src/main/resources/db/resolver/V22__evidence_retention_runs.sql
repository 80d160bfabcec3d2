-- One row per evidence retention run (docs/evidence.md): what it checked, flagged, kept and expired. Any instance
-- answers the status endpoint's last run from here.
CREATE TABLE evidence_retention_run (
    run_id                uuid        PRIMARY KEY,
    tenant                text,
    kind                  text        NOT NULL CHECK (kind IN ('SCHEDULED', 'REQUESTED')),
    instance              text        NOT NULL,
    started_at            timestamptz NOT NULL,
    finished_at           timestamptz NOT NULL DEFAULT now(),
    outcome               text        NOT NULL CHECK (outcome IN ('COMPLETED', 'FAILED')),
    checked               bigint      NOT NULL DEFAULT 0,
    newly_missing         bigint      NOT NULL DEFAULT 0,
    reappeared            bigint      NOT NULL DEFAULT 0,
    missing               bigint      NOT NULL DEFAULT 0,
    candidates            bigint      NOT NULL DEFAULT 0,
    kept_referenced       bigint      NOT NULL DEFAULT 0,
    expired               bigint      NOT NULL DEFAULT 0,
    expired_bytes         bigint      NOT NULL DEFAULT 0,
    objects_deleted       bigint      NOT NULL DEFAULT 0,
    error                 text
);
CREATE INDEX evidence_retention_run_recent ON evidence_retention_run (finished_at DESC);
