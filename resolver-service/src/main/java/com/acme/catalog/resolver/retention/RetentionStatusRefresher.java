package com.acme.catalog.resolver.retention;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamEpoch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Feeds the retention gauges from the database (whatever instance changed it), counts leases that expired
 * unreleased, and deletes lease rows that ended longer ago than {@code retention.lease.keep-ended}.
 */
@Component
class RetentionStatusRefresher {

    private static final Logger log = LoggerFactory.getLogger(RetentionStatusRefresher.class);

    private final RetentionRepository retention;
    private final LeaseRepository leases;
    private final RetentionStatusReader reader;
    private final RetentionMetrics metrics;
    private final RetentionProperties properties;

    RetentionStatusRefresher(RetentionRepository retention, LeaseRepository leases, RetentionStatusReader reader,
            RetentionMetrics metrics, RetentionProperties properties) {
        this.retention = retention;
        this.leases = leases;
        this.reader = reader;
        this.metrics = metrics;
        this.properties = properties;
    }

    synchronized void refresh() {
        for (StreamId s : leases.claimNewlyExpired()) {
            metrics.leaseExpired();
        }
        leases.deleteEndedBefore(properties.lease().keepEnded());
        Set<StreamId> streams = new LinkedHashSet<>();
        for (StreamEpoch se : retention.streamEpochs(null, null)) {
            streams.add(se.stream());
        }
        List<RetentionStatus> statuses = new ArrayList<>(streams.size());
        for (StreamId s : streams) {
            try {
                statuses.add(reader.read(s, null));
            } catch (ApiException e) {
                log.debug("no retention status for {}: {}", s, e.getMessage()); // e.g. fenced during a rotation
            }
        }
        metrics.publish(statuses);
    }
}
