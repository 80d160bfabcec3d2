-- Chain checks of a generation against the resolver (docs/product-projections.md, docs/rebuild.md).
--
-- start_digest: the chain digest at start_position (the export's W, or 64 zeros for an empty start), so a
-- redelivery of a position at or below the export is checked against the chain the generation was loaded from
-- instead of being taken as a duplicate on trust. Generations loaded before this column existed keep it NULL
-- unless their chain has not moved since the load.
--
-- diverged_at / divergence: set when the recovery worker found that the generation's verified chain is not the
-- resolver's (another digest at the same position, or a position the resolver never committed). Such a
-- generation is never reported CURRENT; the worker rebuilds the stream, and the cutover retires it.
ALTER TABLE generation
    ADD COLUMN start_digest text,
    ADD COLUMN diverged_at  timestamptz,
    ADD COLUMN divergence   text;

UPDATE generation SET start_digest = repeat('0', 64) WHERE start_position = 0;
UPDATE generation SET start_digest = chain_digest WHERE start_digest IS NULL AND chain_position = start_position;
-- new generations start empty at position 0 unless the loader sets the export's digest
ALTER TABLE generation ALTER COLUMN start_digest SET DEFAULT repeat('0', 64);
