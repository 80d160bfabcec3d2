-- A rebuild loads its shadow generation into plain tables without secondary indexes and builds the indexes after
-- the load (one sorted build per index instead of one index insertion per row), then attaches the tables as the
-- generation's partitions. create_generation_partitions (V2) stays for empty generations (live start).

-- The generation's tables, shaped like the parents (columns, NOT NULL, defaults, CHECKs) with a CHECK matching the
-- partition bound, but no index and not attached: nobody but the creating transaction sees them.
CREATE FUNCTION create_generation_tables(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
    part text;
BEGIN
    FOREACH t IN ARRAY generation_tables() LOOP
        part := t || '_g' || g;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (generation_id = %s)', part, part || '_bound', g);
    END LOOP;
END
$$;

-- Builds on t's table of generation g every index the parent t has, equivalent to the parent's (same columns,
-- method, predicate; a primary key or unique constraint as a constraint), so ATTACH PARTITION adopts them instead
-- of building its own. Read from the catalog, so an index a later migration adds to a parent is built here too.
CREATE FUNCTION build_generation_indexes(g bigint, t text) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    part text := t || '_g' || g;
    r record;
BEGIN
    FOR r IN SELECT i.indexrelid, c.oid AS constraint_oid, c.contype, pi.relname AS index_name
               FROM pg_index i
               JOIN pg_class pi ON pi.oid = i.indexrelid
               LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
              WHERE i.indrelid = t::regclass
              ORDER BY pi.relname
    LOOP
        IF r.constraint_oid IS NOT NULL THEN
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', part,
                           part || CASE r.contype WHEN 'p' THEN '_pkey' ELSE '_' || r.index_name END,
                           pg_get_constraintdef(r.constraint_oid));
        ELSE
            EXECUTE regexp_replace(pg_get_indexdef(r.indexrelid),
                                   '^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+ ',
                                   format('CREATE \1INDEX %I ON %I ', part || '_' || r.index_name, part));
        END IF;
    END LOOP;
END
$$;

-- Attaches generation g's tables as partitions: the bound CHECK lets ATTACH skip its validation scan and the
-- indexes built by build_generation_indexes are adopted. Takes SHARE UPDATE EXCLUSIVE on the parents (reads and
-- writes of other generations go on) until the transaction ends.
CREATE FUNCTION attach_generation_tables(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY generation_tables() LOOP
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', t, t || '_g' || g, g);
    END LOOP;
END
$$;

-- Per-phase wall time of a rebuild (milliseconds, summed over attempts) and of the steps inside LOADING and
-- CATCHING_UP, for GET /v1/rebuilds/{id}. phase_started_at is when the current phase began.
ALTER TABLE rebuild
    ADD COLUMN phase_started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    ADD COLUMN phase_ms         jsonb       NOT NULL DEFAULT '{}',
    ADD COLUMN step_ms          jsonb       NOT NULL DEFAULT '{}';
