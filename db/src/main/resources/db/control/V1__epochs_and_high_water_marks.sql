-- The control store (DESIGN.md step 9 and section 5): history epochs and committed high-water marks per stream,
-- in a database of its own that is never restored together with the resolver's. Only the resolver's epoch API
-- issues epochs; the resolver records high-water marks after its commits (batched, off the write path).

-- Every epoch ever issued for a stream, permanently: the current epoch of a stream is its highest row. Epochs of a
-- stream are issued 1, 2, 3, ... (a rotation that failed half way may leave a number that no cursor ever used).
CREATE TABLE stream_epoch (
    tenant     text        NOT NULL,
    catalog    text        NOT NULL,
    epoch      bigint      NOT NULL CHECK (epoch >= 1),
    reason     text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    -- the token name (or "resolver" for an epoch adopted automatically) that issued it
    issuer     text        NOT NULL,
    issued_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (tenant, catalog, epoch)
);

-- History is permanent and only grows: no row is changed or removed, and a new epoch is above every earlier one.
CREATE FUNCTION stream_epoch_append_only() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'stream_epoch is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF EXISTS (SELECT 1 FROM stream_epoch
                WHERE tenant = NEW.tenant AND catalog = NEW.catalog AND epoch >= NEW.epoch) THEN
        RAISE EXCEPTION 'epoch % of %/% is not above every epoch issued before', NEW.epoch, NEW.tenant, NEW.catalog
            USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER stream_epoch_append_only
    BEFORE INSERT OR UPDATE OR DELETE ON stream_epoch
    FOR EACH ROW EXECUTE FUNCTION stream_epoch_append_only();
CREATE TRIGGER stream_epoch_no_truncate
    BEFORE TRUNCATE ON stream_epoch
    FOR EACH STATEMENT EXECUTE FUNCTION stream_epoch_append_only();

-- The highest position the resolver is known to have committed in each (stream, epoch). It only grows
-- (GREATEST on every record), so a resolver database whose cursor is behind it was rolled back.
CREATE TABLE stream_high_water_mark (
    tenant       text        NOT NULL,
    catalog      text        NOT NULL,
    epoch        bigint      NOT NULL CHECK (epoch >= 1),
    position     bigint      NOT NULL CHECK (position >= 0),
    recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (tenant, catalog, epoch)
);
