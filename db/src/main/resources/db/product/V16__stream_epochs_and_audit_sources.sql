-- Issue 18, the product's half: the current epoch of each stream as the product learnt it from the resolver
-- (GET /v1/epochs/{t}/{c}), and where each audited old-epoch event reached the product.

-- Only ever raised. An epoch above the serving generation's means its data is stale: it is rebuilt from an export
-- of this epoch, and every event of an older epoch is audited and ignored.
CREATE TABLE stream_epoch (
    tenant      text        NOT NULL,
    catalog     text        NOT NULL,
    epoch       bigint      NOT NULL CHECK (epoch >= 1),
    learned_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, catalog)
);

-- DELIVERY (the inbox), PAGE (a catch-up page), EXPORT (a manifest: position is its cursor, no event), PARKED (a
-- held event of the old epoch, discarded when the new epoch was learnt).
ALTER TABLE old_epoch_delivery
    ADD COLUMN source text NOT NULL DEFAULT 'DELIVERY' CHECK (source IN ('DELIVERY', 'PAGE', 'EXPORT', 'PARKED')),
    ALTER COLUMN event_id DROP NOT NULL,
    ALTER COLUMN event_type DROP NOT NULL;
