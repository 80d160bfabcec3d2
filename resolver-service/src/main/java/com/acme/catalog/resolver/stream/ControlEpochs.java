package com.acme.catalog.resolver.stream;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.StartsFrom;

/**
 * The streams' current epochs as the control store records them (outside this database, so a restored database
 * cannot roll them back), read for many streams at once. The epoch capability provides it.
 */
public interface ControlEpochs {

    /**
     * @return the current epoch of each of {@code streams} the control store knows, in one read; empty when the
     *         control store cannot be reached (callers then know only this database's epochs)
     */
    Map<StreamId, ControlEpoch> currentEpochs(List<StreamId> streams);

    /** A stream's current epoch in the control store and where it starts ({@code startsFrom} null where unknown). */
    record ControlEpoch(long epoch, StartsFrom startsFrom) {
    }
}
