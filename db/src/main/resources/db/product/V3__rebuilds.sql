-- Product rebuilds (docs/rebuild.md): one row per requested rebuild of a stream, its phase and progress. The
-- rebuild runs in the product process; the row is what GET /v1/rebuilds/{id} answers and what an operator reads
-- after a crash (a row left in a non-final phase by a stopped process is FAILED at the next start).
CREATE TABLE rebuild (
    rebuild_id      uuid        PRIMARY KEY,
    tenant          text        NOT NULL,
    catalog         text        NOT NULL,
    phase           text        NOT NULL CHECK (phase IN ('LEASING', 'EXPORTING', 'LOADING', 'CATCHING_UP',
                                                          'CUTTING_OVER', 'DONE', 'FAILED', 'ABORTED')),
    attempt         integer     NOT NULL DEFAULT 1,
    lease_id        text,
    export_id       text,
    generation_id   bigint,
    -- the shadow generation's contiguous processed position, and the target H chosen for the cutover
    cursor          bigint      NOT NULL DEFAULT 0,
    target          bigint,
    loaded_rows     bigint      NOT NULL DEFAULT 0,
    applied_events  bigint      NOT NULL DEFAULT 0,
    error           text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rebuild_stream ON rebuild (tenant, catalog, created_at);
