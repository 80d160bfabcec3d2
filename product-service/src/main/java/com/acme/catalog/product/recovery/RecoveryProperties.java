package com.acme.catalog.product.recovery;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.boot.convert.DurationUnit;

/**
 * {@code product.recovery.*}: the recovery worker, its lease and its catch-up (docs/rebuild.md "Recovery worker";
 * docs/configuration.md lists the keys).
 *
 * @param enabled          whether this instance runs the worker and the epoch poller at all
 * @param instanceId       this instance's lease owner id ({@code PRODUCT_INSTANCE_ID}), stable and unique per
 *                         instance; blank: a random id per process
 * @param leaseTtl         how long a worker lease lasts unrenewed; renewed every third of it, released on shutdown
 * @param interval         pause between two periodic cycles of every stream
 * @param gapGrace         how long a live gap waits for the relay before the worker fills it
 * @param initialBackoff   wait after the first failed cycle of a stream, doubled per failure in a row
 * @param maxBackoff       the longest wait between failed cycles
 * @param pageLimit        events asked for per catch-up page
 * @param maxPagesPerCycle catch-up pages per cycle; the next cycle continues
 * @param resolverLeaseTtl ttl of the resolver retention lease a catch-up holds, renewed after every page
 */
@ConfigurationProperties("product.recovery")
record RecoveryProperties(@DefaultValue("true") boolean enabled, @DefaultValue("") String instanceId,
        @Name("lease-ttl-seconds") @DurationUnit(ChronoUnit.SECONDS) @DefaultValue("30") Duration leaseTtl,
        @Name("interval-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("30000") Duration interval,
        @Name("gap-grace-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("2000") Duration gapGrace,
        @Name("initial-backoff-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("1000") Duration initialBackoff,
        @Name("max-backoff-ms") @DurationUnit(ChronoUnit.MILLIS) @DefaultValue("60000") Duration maxBackoff,
        @DefaultValue("1000") int pageLimit, @DefaultValue("20") int maxPagesPerCycle,
        @Name("resolver-lease-ttl-seconds") @DurationUnit(ChronoUnit.SECONDS) @DefaultValue("60")
        Duration resolverLeaseTtl) {

    RecoveryProperties {
        if (leaseTtl.getSeconds() < 1 || resolverLeaseTtl.getSeconds() < 1) {
            throw new IllegalArgumentException("product.recovery.lease-ttl-seconds and resolver-lease-ttl-seconds must "
                    + "be at least 1, not " + leaseTtl.getSeconds() + " and " + resolverLeaseTtl.getSeconds());
        }
        if (interval.toMillis() < 1) {
            throw new IllegalArgumentException("product.recovery.interval-ms must be positive, not "
                    + interval.toMillis());
        }
        if (gapGrace.isNegative()) {
            throw new IllegalArgumentException("product.recovery.gap-grace-ms must not be negative, not "
                    + gapGrace.toMillis());
        }
        if (initialBackoff.toMillis() < 1 || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("product.recovery needs 1 <= initial-backoff-ms <= max-backoff-ms, not "
                    + initialBackoff.toMillis() + " and " + maxBackoff.toMillis());
        }
        if (pageLimit < 1 || maxPagesPerCycle < 1) {
            throw new IllegalArgumentException("product.recovery.page-limit and max-pages-per-cycle must be at least "
                    + "1, not " + pageLimit + " and " + maxPagesPerCycle);
        }
    }
}
