-- Moving a stream to another resolver database (docs/runbooks/move-stream.md): while MOVING, writes of the stream are
-- refused (409 STREAM_MOVING) and its export is taken; once MOVED the stream is retired here for good (410
-- STREAM_MOVED naming move_target, where it lives now) and the relay delivers nothing of it. Set on the open cursor
-- row, which every write locks first; a rotation carries it to the next epoch's row (bootstrap.FenceCarry).
ALTER TABLE stream_cursor
    ADD COLUMN move_state  text CHECK (move_state IN ('MOVING', 'MOVED')),
    ADD COLUMN move_target text,
    ADD COLUMN move_since  timestamptz,
    ADD COLUMN move_reason text,
    ADD COLUMN move_by     text,
    ADD CONSTRAINT stream_cursor_move_target CHECK ((move_state IS NULL) = (move_target IS NULL));
