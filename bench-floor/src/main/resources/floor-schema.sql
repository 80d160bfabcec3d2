-- app a: one row per written change, numbered by a sequence (the floor has no cursor)
CREATE TABLE IF NOT EXISTS floor_event (
    position   bigserial PRIMARY KEY,
    stream     text  NOT NULL,
    item_id    text  NOT NULL,
    attributes jsonb NOT NULL
);
-- app b: the rows as applied, per stream (the benchmark's observer reads max(position) per stream)
CREATE TABLE IF NOT EXISTS floor_applied (
    stream     text   NOT NULL,
    position   bigint NOT NULL,
    item_id    text   NOT NULL,
    attributes jsonb  NOT NULL,
    PRIMARY KEY (stream, position)
);
