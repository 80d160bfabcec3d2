-- No query reads accepted_revision by (tenant, catalog, epoch, position): the write path probes it by primary key
-- (aggregate and revision), and exports, catch-up, relay and pruning read the outbox and the current-state tables.
-- Yet every accepted event paid one more B-tree insert for it; in a bootstrap import that was about a third of the
-- cost of inserting the revision rows. A reader by position, if one is ever needed, gets its index back in the
-- migration that adds the reader.
DROP INDEX IF EXISTS accepted_revision_by_position;
