-- Products poll the rolled back streams every couple of seconds (GET /v1/streams?rolledBack=true). Marks are rare
-- and the open cursors are as many as the streams (thousands): a partial index holds only the marked open cursors,
-- so that poll reads what is marked, not every stream (stream.StreamDirectory).
CREATE INDEX stream_cursor_rolled_back ON stream_cursor (tenant, catalog)
    WHERE rolled_back_at IS NOT NULL AND fenced_at IS NULL;
