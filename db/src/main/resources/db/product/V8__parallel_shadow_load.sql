-- A rebuild loads its shadow generation on two connections at once (docs/rebuild.md): the plain tables are
-- created, filled and indexed in several committed transactions, and only the last transaction (under the worker
-- fence) turns the unique indexes into the parents' constraints and attaches the tables. Until then the tables are
-- invisible to readers (not attached) and a BUILDING generation whose rebuild stopped is dropped by
-- GenerationRetirer. The indexes are built with CREATE INDEX (SHARE lock: another connection may read the table
-- meanwhile) rather than ALTER TABLE … ADD CONSTRAINT (ACCESS EXCLUSIVE for the whole build).

-- Creates generation g's plain table of t, shaped like the parent with a CHECK matching the partition bound (like
-- create_generation_tables of V6, one table).
CREATE FUNCTION create_generation_table(g bigint, t text) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    part text := t || '_g' || g;
BEGIN
    IF NOT t = ANY (generation_tables()) THEN
        RAISE EXCEPTION 'not a generation table: %', t;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (generation_id = %s)', part, part || '_bound', g);
END
$$;

-- The name generation g's table of t gives the index (or the constraint) equivalent to the parent's index.
CREATE FUNCTION generation_index_name(part text, contype "char", index_name text) RETURNS text
    LANGUAGE sql IMMUTABLE
AS $$
    SELECT part || CASE WHEN contype = 'p' THEN '_pkey' ELSE '_' || index_name END
$$;

-- Builds on t's table of generation g an index equivalent to each of the parent's indexes (a primary key or
-- unique constraint's as a plain unique index, named as build_generation_indexes names the constraint);
-- attach_generation_tables_using_indexes turns those into constraints without another build.
CREATE FUNCTION build_generation_index_parts(g bigint, t text) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    part text := t || '_g' || g;
    r record;
BEGIN
    FOR r IN SELECT i.indexrelid, c.contype, pi.relname AS index_name
               FROM pg_index i
               JOIN pg_class pi ON pi.oid = i.indexrelid
               LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
              WHERE i.indrelid = t::regclass
              ORDER BY pi.relname
    LOOP
        IF r.contype IS NOT NULL AND r.contype NOT IN ('p', 'u') THEN
            RAISE EXCEPTION 'index % of % backs a constraint of type %', r.index_name, t, r.contype;
        END IF;
        EXECUTE regexp_replace(pg_get_indexdef(r.indexrelid),
                               '^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+ ',
                               format('CREATE \1INDEX %I ON %I ',
                                      generation_index_name(part, r.contype, r.index_name), part));
    END LOOP;
END
$$;

-- Makes the unique indexes built by build_generation_index_parts the constraints the parents have (no scan, no
-- build: the key columns are NOT NULL already), then attaches every table of generation g as a partition; the
-- parents adopt the indexes.
CREATE FUNCTION attach_generation_tables_using_indexes(g bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
DECLARE
    t text;
    part text;
    r record;
    name text;
BEGIN
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
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', t, part, g);
    END LOOP;
END
$$;
