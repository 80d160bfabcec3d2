package com.acme.catalog.resolver.retention;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code retention.*} settings; docs/retention.md lists them for operators.
 *
 * @param minAge how long a published event stays in the outbox at least, counted from the publish batch that published it ({@code outbox_publish})
 *               (database time); a safety margin for redeliveries and unregistered readers, not a replacement for
 *               consumers and leases
 * @param prune  the outbox pruner
 * @param status the periodic status refresh that feeds the retention gauges from the database
 * @param lease  rebuild lease limits
 * @param bytes  the retained-bytes measurement and its budget (alerting only: retention's rule ignores it)
 */
@ConfigurationProperties("retention")
record RetentionProperties(@DefaultValue("PT1H") Duration minAge, @DefaultValue Prune prune,
        @DefaultValue Status status, @DefaultValue Lease lease, @DefaultValue Bytes bytes) {

    RetentionProperties {
        if (minAge.isNegative()) {
            throw new IllegalArgumentException("retention.min-age must not be negative");
        }
    }

    /**
     * @param enabled             whether the scheduled pruner runs ({@code POST /v1/retention/prune} always works)
     * @param interval            pause between two scheduled prune cycles
     * @param batchSize           outbox rows deleted per transaction; each batch holds the retention lock briefly
     * @param batchPause          pause between two batches of one stream, leaving the disk to writers
     * @param maxBatchesPerStream batches per stream per cycle; the next cycle continues where this one stopped
     */
    record Prune(@DefaultValue("true") boolean enabled, @DefaultValue("PT30S") Duration interval,
            @DefaultValue("1000") int batchSize, @DefaultValue("PT0S") Duration batchPause,
            @DefaultValue("200") int maxBatchesPerStream) {

        Prune {
            if (batchSize < 1 || batchSize > 100_000) {
                throw new IllegalArgumentException("retention.prune.batch-size must be 1..100000");
            }
            if (maxBatchesPerStream < 1) {
                throw new IllegalArgumentException("retention.prune.max-batches-per-stream must be >= 1");
            }
        }
    }

    /**
     * @param enabled         whether gauges are refreshed periodically (besides after each scheduled prune cycle)
     * @param refreshInterval how often
     * @param fullScanInterval how often a status read re-reads every retained outbox row of a (stream, epoch)
     *                         instead of only what changed since its last read (PT0S: every read is a full scan)
     */
    record Status(@DefaultValue("true") boolean enabled, @DefaultValue("PT15S") Duration refreshInterval,
            @DefaultValue("PT1H") Duration fullScanInterval) {

        Status {
            if (fullScanInterval.isNegative()) {
                throw new IllegalArgumentException("retention.status.full-scan-interval must not be negative");
            }
        }
    }

    /**
     * @param maxTtl    the longest ttl a lease may ask for at once (renew to keep it longer)
     * @param keepEnded how long released or expired lease rows are kept for inspection before they are deleted
     */
    record Lease(@DefaultValue("PT24H") Duration maxTtl, @DefaultValue("P7D") Duration keepEnded) {
    }

    /**
     * @param budget          how many bytes the retained outbox of all streams may hold before the
     *                        {@code RetainedBytesOverBudget} alert fires; exported as a gauge, never enforced
     * @param streamThreshold a stream has its own {@code resolver_retention_retained_bytes} series only while it
     *                        retains at least this much (0B: every stream with retained rows), so thousands of
     *                        quiet streams cost no series
     * @param measureInterval the shortest pause between two measurements (one statement over the whole outbox,
     *                        so its cost grows with the retained size); the status refresh measures when it is due
     */
    record Bytes(@DefaultValue("10GB") DataSize budget, @DefaultValue("64MB") DataSize streamThreshold,
            @DefaultValue("PT1M") Duration measureInterval) {

        Bytes {
            if (budget.toBytes() <= 0) {
                throw new IllegalArgumentException("retention.bytes.budget must be positive");
            }
            if (streamThreshold.isNegative()) {
                throw new IllegalArgumentException("retention.bytes.stream-threshold must not be negative");
            }
            if (measureInterval.isNegative()) {
                throw new IllegalArgumentException("retention.bytes.measure-interval must not be negative");
            }
        }
    }
}
