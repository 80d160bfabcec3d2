-- Whether a FAILED export failed for a reason about the stream's data (a new export would fail the same way) or not
-- (the database or object store out of reach, the instance stopped): GET /v1/exports/{id} shows it as "permanent",
-- and the product's rebuild asks for a new export only when it is false (docs/rebuild.md).
ALTER TABLE snapshot_export ADD COLUMN permanent boolean NOT NULL DEFAULT false;
