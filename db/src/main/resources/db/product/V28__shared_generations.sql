-- Generations of quiet streams share one partition per table (docs/streams.md, "How generations are stored").
--
-- Until now every generation had nine partitions of its own (with their indexes: ~21 relations, ~0.4 MiB, and
-- ~200 ms of DDL that serialises on the parents' SHARE UPDATE EXCLUSIVE lock): a product opening 10,000 quiet
-- streams created 210,000 relations, five streams a second. Now a stream opened empty (it catches up from the
-- resolver's retained events) gets a *shared* generation: an id from its own range, whose rows live in the tables'
-- one shared partition. Opening it is an INSERT. Only a rebuild's bulk load still gets *dedicated* partitions
-- (COPY into plain tables, indexes after the load, ATTACH), as before.
--
-- The guarantees stay, with rows keyed by generation_id instead of tables: a shadow is isolated (nobody reads a
-- generation but through its cursor or the serving pointer), the cutover is one UPDATE of the pointer, and
-- retiring a shared generation is a DELETE of its rows (row locks only: readers never wait), in one transaction
-- with marking it RETIRED.
--
-- LIST partitioning cannot give a partition a range of ids, and a DEFAULT partition would make every ATTACH take
-- ACCESS EXCLUSIVE on it and rules out DETACH … CONCURRENTLY. So the parents become RANGE-partitioned: a dedicated
-- generation g is the partition [g, g+1), the shared partition is [10^15, MAXVALUE). Dedicated ids come from the
-- generation table's identity (far below 10^15), shared ids from the sequence shared_generation_id.

CREATE SEQUENCE shared_generation_id AS bigint START WITH 1000000000000000 MINVALUE 1000000000000000;

-- The first id of the shared range (immutable: the partition bound and the Java side agree on it).
CREATE FUNCTION shared_generation_base() RETURNS bigint
    LANGUAGE sql IMMUTABLE
AS $$
    SELECT 1000000000000000::bigint
$$;

ALTER TABLE generation
    ADD COLUMN shared boolean GENERATED ALWAYS AS (generation_id >= 1000000000000000) STORED;

-- Re-partition every generation table by RANGE, keeping its columns, constraints, indexes and existing partitions
-- (a partition left pending detach belongs to a RETIRED generation: it is dropped).
DO $$
DECLARE
    t text;
    old text;
    defs text[];
    d text;
    r record;
    parts text[];
    part text;
BEGIN
    FOREACH t IN ARRAY generation_tables() LOOP
        old := t || '_by_list';
        -- the parent's keys and indexes, as statements naming the parent (which keeps its name)
        defs := ARRAY[]::text[];
        FOR r IN SELECT c.conname, pg_get_constraintdef(c.oid) AS def
                   FROM pg_constraint c
                  WHERE c.conrelid = t::regclass AND c.contype IN ('p', 'u')
                  ORDER BY c.conname
        LOOP
            defs := defs || format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, r.conname, r.def);
        END LOOP;
        FOR r IN SELECT pg_get_indexdef(i.indexrelid) AS def
                   FROM pg_index i JOIN pg_class pi ON pi.oid = i.indexrelid
                  WHERE i.indrelid = t::regclass
                    AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid
                                                                    AND c.conrelid = i.indrelid)
                  ORDER BY pi.relname
        LOOP
            defs := defs || regexp_replace(r.def, ' ON ONLY ', ' ON ');
        END LOOP;

        EXECUTE format('ALTER TABLE %I RENAME TO %I', t, old);
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) '
                       'PARTITION BY RANGE (generation_id)', t, old);

        parts := ARRAY[]::text[];
        FOR r IN SELECT c.relname, i.inhdetachpending
                   FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                  WHERE i.inhparent = old::regclass
        LOOP
            IF r.inhdetachpending THEN
                EXECUTE format('DROP TABLE %I', r.relname);
            ELSE
                EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', old, r.relname);
                parts := parts || r.relname::text;
            END IF;
        END LOOP;
        EXECUTE format('DROP TABLE %I', old);

        FOREACH d IN ARRAY defs LOOP
            EXECUTE d;
        END LOOP;
        -- the partitions' bound CHECK (generation_id = g) implies the range: ATTACH skips its scan and adopts the
        -- partitions' equivalent indexes
        FOREACH part IN ARRAY parts LOOP
            EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', t, part,
                           substring(part FROM '_g([0-9]+)$')::bigint,
                           substring(part FROM '_g([0-9]+)$')::bigint + 1);
        END LOOP;
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (MAXVALUE)', t || '_shared', t,
                       shared_generation_base());
    END LOOP;
END
$$;

-- The functions that attach a dedicated generation's tables, now with its range bound. A shared id is refused:
-- its rows belong in the shared partition.
CREATE OR REPLACE FUNCTION create_generation_partitions(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
    part text;
BEGIN
    IF g >= shared_generation_base() THEN
        RAISE EXCEPTION 'generation % is shared: it has no partitions of its own', g;
    END IF;
    FOREACH t IN ARRAY generation_tables() LOOP
        part := t || '_g' || g;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (generation_id = %s)', part, part || '_bound', g);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', t, part, g, g + 1);
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION attach_generation_tables(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
BEGIN
    IF g >= shared_generation_base() THEN
        RAISE EXCEPTION 'generation % is shared: it has no partitions of its own', g;
    END IF;
    FOREACH t IN ARRAY generation_tables() LOOP
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', t, t || '_g' || g, g,
                       g + 1);
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION attach_generation_tables_using_indexes(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
    part text;
    r record;
    name text;
BEGIN
    IF g >= shared_generation_base() THEN
        RAISE EXCEPTION 'generation % is shared: it has no partitions of its own', g;
    END IF;
    FOREACH t IN ARRAY generation_tables() LOOP
        part := t || '_g' || g;
        FOR r IN SELECT c.contype, pi.relname AS index_name
                   FROM pg_constraint c JOIN pg_class pi ON pi.oid = c.conindid
                  WHERE c.conrelid = t::regclass AND c.contype IN ('p', 'u')
        LOOP
            name := generation_index_name(part, r.contype, r.index_name);
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s USING INDEX %I', part, name,
                           CASE r.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, name);
        END LOOP;
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', t, part, g, g + 1);
    END LOOP;
END
$$;
