-- The product's schema. Projection tables arrive with the live-consumer work; this migration only makes sure
-- the schema is Flyway-managed from the first start.
CREATE TABLE product_instance (
    instance_id text PRIMARY KEY,
    started_at  timestamptz NOT NULL DEFAULT now()
);
