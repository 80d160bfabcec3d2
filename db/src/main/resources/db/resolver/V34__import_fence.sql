-- The import fence (docs/bootstrap-import.md "The import fence"): while a bootstrap import runs, every write of its
-- stream is refused (409 IMPORT_IN_PROGRESS) and the relay holds the stream. The fence is set on the open cursor row
-- (the row every write locks first, so a write that waited for the lock reads it) and names the database session
-- that holds the stream's import lock, the session advisory lock (class 1112493908, "BOOT";
-- bootstrap.ImportLock). It ends with that session: a fence whose session no longer holds the lock (the importer
-- died, its connection was killed) refuses nothing, whatever the columns still say.
ALTER TABLE stream_cursor
    ADD COLUMN import_pid   integer,
    ADD COLUMN import_token uuid,
    ADD COLUMN import_since timestamptz,
    ADD COLUMN import_by    text;

-- Whether the session with backend pid `holder` holds the import lock of stream tenant/catalog in this database.
-- Callers test `holder IS NULL` first (the function is not inlined, and almost every row has no fence).
CREATE FUNCTION import_fence_held(holder integer, tenant text, catalog text) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT holder IS NOT NULL AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.pid = holder
           AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database())
           AND l.classid = 1112493908 AND l.objid = hashtext(tenant || '/' || catalog)::oid AND l.objsubid = 2)
$$;
