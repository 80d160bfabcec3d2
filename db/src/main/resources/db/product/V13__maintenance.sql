-- Maintenance mode of the product (docs/epochs.md): one row, so it survives a restart and every instance sees the
-- same switch. Deliveries and catch-up pages take the live lock only after reading it under a shared
-- transaction-scoped advisory lock that the switch takes exclusively (contracts.maintenance.MaintenanceSwitch).
CREATE TABLE maintenance_mode (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    enabled     boolean     NOT NULL DEFAULT false,
    since       timestamptz,
    changed_by  text,
    changed_at  timestamptz
);
INSERT INTO maintenance_mode DEFAULT VALUES;
