-- Versioned projections (docs/runbooks/projection-upgrade.md). The product's code carries a projection version,
-- raised whenever the projection's tables or derivations change; every generation records the version it was built
-- with, so an instance of a newer version rebuilds a stream served by an older generation in the background, and an
-- instance of an older version (during a rolling upgrade) never rebuilds back nor writes into a newer generation.
-- Every generation that exists before this migration was built by version 1.
ALTER TABLE generation
    ADD COLUMN projection_version integer NOT NULL DEFAULT 1 CHECK (projection_version >= 1);

-- The version a rebuild builds its generation with, and why it was started (OPERATOR, RECOVERY, PROJECTION_UPGRADE;
-- null for rebuilds from before this migration).
ALTER TABLE rebuild
    ADD COLUMN projection_version integer NOT NULL DEFAULT 1 CHECK (projection_version >= 1),
    ADD COLUMN reason             text;

-- The projection version of the worker lease's holder: an instance of a newer version takes a stream's lease over
-- from a live holder of an older version (the older one's fence then fails, as on any takeover), never the reverse.
ALTER TABLE recovery_lease
    ADD COLUMN projection_version integer NOT NULL DEFAULT 1 CHECK (projection_version >= 1);
