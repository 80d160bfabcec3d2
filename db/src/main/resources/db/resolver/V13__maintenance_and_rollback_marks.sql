-- Restore fencing in the resolver's own database (docs/epochs.md).

-- Maintenance mode: one row, so it survives a restart and every instance sees the same switch. Writers read it
-- under a shared transaction-scoped advisory lock that the switch takes exclusively, so a write that passed the
-- check commits before the switch does (contracts.maintenance.MaintenanceSwitch).
CREATE TABLE maintenance_mode (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    enabled     boolean     NOT NULL DEFAULT false,
    -- when it was last turned on (kept while on), and who last switched it
    since       timestamptz,
    changed_by  text,
    changed_at  timestamptz
);
INSERT INTO maintenance_mode DEFAULT VALUES;

-- A rollback seen on the open cursor (its position behind the control store's high-water mark, or a consumer's
-- progress ahead of it): writes and the relay refuse the stream until an operator rotates its epoch, which fences
-- this row and opens a new one without the mark.
ALTER TABLE stream_cursor
    ADD COLUMN rolled_back_at     timestamptz,
    ADD COLUMN rolled_back_reason text;
