-- Where each epoch starts (docs/epochs.md "Where a new epoch starts"): a rotation records, with the epoch it issues,
-- the restored position P of the epoch it fenced (starts_from_epoch) and the chain digest at P, so a reader whose
-- applied (epoch, position, digest) equals them holds exactly the state the new epoch starts over. A reset's epoch
-- starts from nothing: starts_from_epoch NULL, position 0, digest 64 zeros. Rows issued before this change (and a
-- stream's first epoch) have none: all three NULL.
--
-- rotation_id names the fleet rotation job (the resolver's epoch_rotation row) that issued the epoch: a job resumed
-- after a crash between this statement and the resolver's own commit finds the epochs it already issued here and
-- completes them instead of issuing a second one.
ALTER TABLE stream_epoch
    ADD COLUMN starts_from_epoch    bigint CHECK (starts_from_epoch >= 1),
    ADD COLUMN starts_from_position bigint CHECK (starts_from_position >= 0),
    ADD COLUMN starts_from_digest   text   CHECK (starts_from_digest ~ '^[0-9a-f]{64}$'),
    ADD COLUMN rotation_id          uuid,
    ADD CONSTRAINT stream_epoch_starts_from_whole
        CHECK ((starts_from_position IS NULL) = (starts_from_digest IS NULL)
               AND (starts_from_epoch IS NULL OR starts_from_position IS NOT NULL));

CREATE INDEX stream_epoch_rotation ON stream_epoch (rotation_id, tenant, catalog) WHERE rotation_id IS NOT NULL;
