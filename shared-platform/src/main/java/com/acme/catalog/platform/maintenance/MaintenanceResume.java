package com.acme.catalog.platform.maintenance;

/**
 * What a service must know before its maintenance ends, run by {@link MaintenanceSwitch#set} before it turns
 * maintenance off (a bean of the service; none by default). The product learns here the epochs an operator rotated
 * during maintenance, so its first public read afterwards already refuses a generation of the old epoch
 * (docs/epochs.md). Throwing keeps maintenance on: the switch answers the exception and changes nothing.
 */
public interface MaintenanceResume {

    /** Runs outside any transaction, before maintenance is turned off. */
    void beforeResume();

    /**
     * Runs in the switch's own transaction, after it took the maintenance hold exclusively (so whatever started
     * under the hold before has committed and is visible) and before it turns maintenance off. Throwing keeps
     * maintenance on: the resolver refuses while a fleet epoch rotation runs, unless {@code force}.
     *
     * @param force the caller asked to turn maintenance off whatever still needs it
     */
    default void whileResuming(boolean force) {
    }
}
