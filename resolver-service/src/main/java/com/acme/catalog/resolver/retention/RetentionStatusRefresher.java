package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Feeds the retention gauges from the database (whatever instance changed it), counts leases that expired
 * unreleased, and deletes lease rows that ended longer ago than {@code retention.lease.keep-ended}. Each refresh
 * costs one statement for all streams ({@link RetentionRepository#statusFingerprints}) plus a full status read of
 * each stream whose fingerprint moved since the last one: quiet streams cost no per-stream work. The retained bytes
 * are measured by one more statement over the whole outbox, at most every {@code retention.bytes.measure-interval}.
 */
@Component
class RetentionStatusRefresher {

    private static final Logger log = LoggerFactory.getLogger(RetentionStatusRefresher.class);

    private final RetentionRepository retention;
    private final LeaseRepository leases;
    private final RetentionStatusReader reader;
    private final RetentionMetrics metrics;
    private final RetentionProperties properties;
    private final RetainedOutboxRepository outbox;
    private final Clock clock;
    /** When the retained bytes were last measured; null before the first measurement. */
    private Instant bytesMeasuredAt;
    /** Per stream, what the last refresh read; a stream whose fingerprint did not move is not read again. */
    private final Map<StreamId, Known> known = new HashMap<>();

    RetentionStatusRefresher(RetentionRepository retention, LeaseRepository leases, RetentionStatusReader reader,
            RetentionMetrics metrics, RetentionProperties properties, RetainedOutboxRepository outbox, Clock clock) {
        this.retention = retention;
        this.outbox = outbox;
        this.clock = clock;
        this.leases = leases;
        this.reader = reader;
        this.metrics = metrics;
        this.properties = properties;
    }

    /** @return how many streams' statuses were read (the others had not changed) */
    synchronized int refresh() {
        for (StreamId s : leases.claimNewlyExpired()) {
            metrics.leaseExpired();
        }
        leases.deleteEndedBefore(properties.lease().keepEnded());
        Map<StreamId, String> now = retention.statusFingerprints();
        int read = 0;
        List<RetentionStatus> statuses = new ArrayList<>(now.size());
        for (Map.Entry<StreamId, String> e : now.entrySet()) {
            StreamId s = e.getKey();
            Known known = this.known.get(s);
            if (known != null && known.fingerprint().equals(e.getValue())) {
                statuses.add(known.status()); // nothing it shows has changed: no per-stream read
                continue;
            }
            try {
                RetentionStatus status = reader.read(s, null);
                read++;
                this.known.put(s, new Known(e.getValue(), status));
                statuses.add(status);
            } catch (ApiException ex) {
                log.debug("no retention status for {}: {}", s, ex.getMessage()); // e.g. fenced during a rotation
            }
        }
        this.known.keySet().retainAll(now.keySet());
        log.debug("retention status refresh: {} stream(s), {} changed and read", now.size(), read);
        metrics.publish(statuses);
        measureRetainedBytesIfDue();
        return read;
    }

    private void measureRetainedBytesIfDue() {
        Instant now = clock.instant();
        if (bytesMeasuredAt != null
                && now.isBefore(bytesMeasuredAt.plus(properties.bytes().measureInterval()))) {
            return;
        }
        metrics.publishRetainedBytes(outbox.retainedBytes());
        bytesMeasuredAt = now;
    }

    /** The status last read for a stream, and the fingerprint it was read at. */
    private record Known(String fingerprint, RetentionStatus status) {
    }
}
