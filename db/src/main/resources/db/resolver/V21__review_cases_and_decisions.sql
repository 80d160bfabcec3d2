-- Review cases over claims and their decisions (docs/evidence.md). Cases, their claims, decisions and what a
-- decision cites are permanent and immutable: triggers refuse UPDATE, DELETE and TRUNCATE of their rows. A case's
-- status is not stored: a case is DECIDED when its decision row exists.

CREATE TABLE review_case (
    case_id     uuid        PRIMARY KEY,
    tenant      text        NOT NULL,
    catalog     text        NOT NULL,
    -- the proposed changes, in the shape of a transaction's changes; json keeps the text as sent (member order)
    changes     json        NOT NULL,
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX review_case_stream ON review_case (tenant, catalog, case_id);

-- The claims a case is about. The foreign key keeps a cited claim (and so its run) from being deleted.
CREATE TABLE review_case_claim (
    case_id   uuid    NOT NULL REFERENCES review_case (case_id),
    claim_id  uuid    NOT NULL REFERENCES claim (claim_id),
    ordinal   integer NOT NULL CHECK (ordinal >= 0),
    PRIMARY KEY (case_id, claim_id)
);
CREATE INDEX review_case_claim_claim ON review_case_claim (claim_id);

-- One decision per case. An ACCEPT applied the case's changes in the same transaction: epoch, positions and the
-- logical transaction id are those the write path gave it; a REJECT wrote nothing to accepted state.
CREATE TABLE review_decision (
    decision_id     uuid        PRIMARY KEY,
    case_id         uuid        NOT NULL UNIQUE REFERENCES review_case (case_id),
    tenant          text        NOT NULL,
    catalog         text        NOT NULL,
    decision        text        NOT NULL CHECK (decision IN ('ACCEPT', 'REJECT')),
    reviewer        text        NOT NULL,
    reason          text        NOT NULL,
    epoch           bigint,
    first_position  bigint,
    last_position   bigint,
    transaction_id  uuid,
    decided_by      text        NOT NULL,
    decided_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((decision = 'ACCEPT') = (epoch IS NOT NULL AND first_position IS NOT NULL AND last_position IS NOT NULL
                                    AND transaction_id IS NOT NULL))
);

-- The artifacts a decision cites: those of its case's claims and any further evidence the reviewer named.
CREATE TABLE decision_citation (
    decision_id  uuid NOT NULL REFERENCES review_decision (decision_id),
    artifact_id  uuid NOT NULL REFERENCES evidence_artifact (artifact_id),
    PRIMARY KEY (decision_id, artifact_id)
);
CREATE INDEX decision_citation_artifact ON decision_citation (artifact_id);

-- The accepted revisions an ACCEPT made: each cites its decision.
CREATE TABLE decision_revision (
    tenant          text    NOT NULL,
    catalog         text    NOT NULL,
    aggregate_type  text    NOT NULL,
    aggregate_id    text    NOT NULL,
    revision        integer NOT NULL,
    decision_id     uuid    NOT NULL REFERENCES review_decision (decision_id),
    PRIMARY KEY (tenant, catalog, aggregate_type, aggregate_id, revision),
    FOREIGN KEY (tenant, catalog, aggregate_type, aggregate_id, revision)
        REFERENCES accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision)
);
CREATE INDEX decision_revision_decision ON decision_revision (decision_id);

CREATE FUNCTION refuse_immutable_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% of % refused: its rows are immutable', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE TRIGGER review_case_immutable BEFORE UPDATE OR DELETE ON review_case
    FOR EACH ROW EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER review_case_no_truncate BEFORE TRUNCATE ON review_case
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER review_case_claim_immutable BEFORE UPDATE OR DELETE ON review_case_claim
    FOR EACH ROW EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER review_case_claim_no_truncate BEFORE TRUNCATE ON review_case_claim
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER review_decision_immutable BEFORE UPDATE OR DELETE ON review_decision
    FOR EACH ROW EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER review_decision_no_truncate BEFORE TRUNCATE ON review_decision
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER decision_citation_immutable BEFORE UPDATE OR DELETE ON decision_citation
    FOR EACH ROW EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER decision_citation_no_truncate BEFORE TRUNCATE ON decision_citation
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER decision_revision_immutable BEFORE UPDATE OR DELETE ON decision_revision
    FOR EACH ROW EXECUTE FUNCTION refuse_immutable_change();
CREATE TRIGGER decision_revision_no_truncate BEFORE TRUNCATE ON decision_revision
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_immutable_change();
