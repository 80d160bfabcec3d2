-- Evidence (DESIGN.md §1 and §5, docs/evidence.md): artifacts whose bytes live in the object store under a private
-- prefix, and the extraction runs and claims made from them. Evidence intake changes no exported state, so nothing
-- here is written under a stream's cursor lock.

-- One stored artifact of a tenant. The bytes are in the object store at object_key; sha256 and bytes are of exactly
-- what was stored. An expired artifact stays as a tombstone (its metadata, status EXPIRED): its runs and claims are
-- deleted with it and its object is deleted after the tombstone commits (object_deleted_at).
CREATE TABLE evidence_artifact (
    artifact_id        uuid        PRIMARY KEY,
    tenant             text        NOT NULL,
    sha256             text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    bytes              bigint      NOT NULL CHECK (bytes >= 1),
    content_type       text        NOT NULL,
    object_key         text        NOT NULL,
    received_by        text        NOT NULL,
    received_at        timestamptz NOT NULL DEFAULT now(),
    -- the last intake of the same bytes or the last extraction run citing it; the expiry window counts from here
    last_activity_at   timestamptz NOT NULL DEFAULT now(),
    -- kept whatever references it has (a regression fixture)
    fixture            boolean     NOT NULL DEFAULT false,
    -- set by the retention job when the object is not in the store; a missing artifact is kept and reported
    missing_since      timestamptz,
    checked_at         timestamptz,
    expired_at         timestamptz,
    object_deleted_at  timestamptz,
    CHECK (object_deleted_at IS NULL OR expired_at IS NOT NULL)
);
-- dedupe: one live artifact per (tenant, content); an expired tombstone does not stop the same bytes coming back
CREATE UNIQUE INDEX evidence_artifact_content ON evidence_artifact (tenant, sha256) WHERE expired_at IS NULL;
CREATE INDEX evidence_artifact_tenant ON evidence_artifact (tenant, artifact_id);
-- the retention job's pass over what may expire, oldest activity first
CREATE INDEX evidence_artifact_live ON evidence_artifact (last_activity_at) WHERE expired_at IS NULL;
CREATE INDEX evidence_artifact_object_pending ON evidence_artifact (artifact_id)
    WHERE expired_at IS NOT NULL AND object_deleted_at IS NULL;

-- One extraction run over one artifact, for one stream. Lives as long as the artifact it cites.
CREATE TABLE extraction_run (
    run_id           uuid        PRIMARY KEY,
    tenant           text        NOT NULL,
    catalog          text        NOT NULL,
    artifact_id      uuid        NOT NULL REFERENCES evidence_artifact (artifact_id),
    extractor        text        NOT NULL,
    unmapped_fields  json        NOT NULL,
    created_by       text        NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX extraction_run_artifact ON extraction_run (artifact_id);

-- One claim of a run: the extractor says field of (aggregate type, id) has value. value is kept as sent (json).
CREATE TABLE claim (
    claim_id        uuid    PRIMARY KEY,
    run_id          uuid    NOT NULL REFERENCES extraction_run (run_id),
    -- the run's, repeated so a case can check its claims' stream and retention their artifact without a join
    tenant          text    NOT NULL,
    catalog         text    NOT NULL,
    artifact_id     uuid    NOT NULL REFERENCES evidence_artifact (artifact_id),
    ordinal         integer NOT NULL CHECK (ordinal >= 0),
    aggregate_type  text    NOT NULL CHECK (aggregate_type IN ('item', 'mapping', 'policy', 'release')),
    aggregate_id    text    NOT NULL,
    field           text    NOT NULL,
    value           json    NOT NULL,
    UNIQUE (run_id, ordinal)
);
CREATE INDEX claim_artifact ON claim (artifact_id);
