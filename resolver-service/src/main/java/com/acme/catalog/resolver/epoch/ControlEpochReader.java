package com.acme.catalog.resolver.epoch;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.ControlEpochs;
import com.acme.catalog.resolver.stream.ControlEpochs.ControlEpoch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** {@link ControlEpochs} from the control store: one statement for a page of streams. */
@Component
class ControlEpochReader implements ControlEpochs {

    private static final Logger log = LoggerFactory.getLogger(ControlEpochReader.class);

    private final EpochRepository epochs;

    ControlEpochReader(EpochRepository epochs) {
        this.epochs = epochs;
    }

    @Override
    public Map<StreamId, ControlEpoch> currentEpochs(List<StreamId> streams) {
        if (streams.isEmpty()) {
            return Map.of();
        }
        try {
            Map<StreamId, ControlEpoch> out = new HashMap<>();
            epochs.currentOf(streams).forEach((s, c) -> out.put(s, new ControlEpoch(c.epoch(), c.startsFrom())));
            return out;
        } catch (RuntimeException e) {
            log.debug("the control store's epochs could not be read for a stream listing: {}", e.toString());
            return Map.of();
        }
    }
}
