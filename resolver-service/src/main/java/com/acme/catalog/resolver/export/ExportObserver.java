package com.acme.catalog.resolver.export;

import java.util.UUID;

/**
 * Told when an export reaches a step, on the export's own thread, so tests can make a lease expire or an epoch
 * change at an exact point of a running export. The service runs without one.
 */
interface ExportObserver {

    /** Steps in the order an export reaches them. */
    enum Step {
        /** The snapshot is open and W read; nothing written yet. */
        SNAPSHOT_OPENED,
        /** One table object is stored (called once per table, inside the snapshot). */
        TABLE_WRITTEN,
        /** Every object is stored and the snapshot closed; the pin has not moved yet. */
        OBJECTS_WRITTEN
    }

    void reached(UUID exportId, Step step);
}
