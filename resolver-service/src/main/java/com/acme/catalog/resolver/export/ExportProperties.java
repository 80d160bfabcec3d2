package com.acme.catalog.resolver.export;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code export.*} settings; docs/exports.md lists them for operators. Public for one reader outside exports: evidence
 * checks that its private key prefix and {@code keyPrefix} do not overlap.
 *
 * @param keep               READY exports kept per stream; older ones are retired and their objects deleted
 * @param threads            exports this instance runs at once (each holds one database connection throughout)
 * @param queueCapacity      exports waiting for a thread; a request beyond it fails at once
 * @param compressionLevel   gzip level of the table objects, 1 (fastest) to 9 (smallest)
 * @param keyPrefix          object-store key prefix under which exports are written
 * @param progressInterval   how often a running export's progress and heartbeat are written to its row
 * @param leaseCheckInterval how often a running export re-checks its lease and epoch while streaming rows
 * @param staleAfter         a RUNNING export whose heartbeat is older than this is failed (its instance died)
 * @param sweepInterval      how often stale exports are looked for
 * @param page               the catch-up endpoint's page bounds
 */
@ConfigurationProperties("export")
public record ExportProperties(@DefaultValue("3") int keep, @DefaultValue("2") int threads,
        @DefaultValue("16") int queueCapacity, @DefaultValue("6") int compressionLevel,
        @DefaultValue("exports") String keyPrefix, @DefaultValue("PT1S") Duration progressInterval,
        @DefaultValue("PT5S") Duration leaseCheckInterval, @DefaultValue("PT2M") Duration staleAfter,
        @DefaultValue("PT30S") Duration sweepInterval, @DefaultValue Page page) {

    public ExportProperties {
        if (keep < 1) {
            throw new IllegalArgumentException("export.keep must be >= 1");
        }
        if (threads < 1 || queueCapacity < 0) {
            throw new IllegalArgumentException("export.threads must be >= 1 and export.queue-capacity >= 0");
        }
        if (compressionLevel < 1 || compressionLevel > 9) {
            throw new IllegalArgumentException("export.compression-level must be 1..9");
        }
        if (keyPrefix.isBlank() || keyPrefix.startsWith("/") || keyPrefix.endsWith("/")) {
            throw new IllegalArgumentException("export.key-prefix must be a relative key without a trailing /");
        }
        if (staleAfter.compareTo(progressInterval.multipliedBy(3)) < 0) {
            throw new IllegalArgumentException("export.stale-after must be at least 3 progress intervals");
        }
    }

    /**
     * @param defaultLimit events per page when {@code limit} is absent
     * @param maxLimit     the largest {@code limit} honoured (a larger one is capped)
     * @param maxBytes     a page stops after the event that reaches this many bytes of wire text (at least one
     *                     event is always returned)
     */
    record Page(@DefaultValue("500") int defaultLimit, @DefaultValue("5000") int maxLimit,
            @DefaultValue("4MB") DataSize maxBytes) {

        Page {
            if (defaultLimit < 1 || maxLimit < defaultLimit) {
                throw new IllegalArgumentException("export.page: 1 <= default-limit <= max-limit");
            }
        }
    }
}
