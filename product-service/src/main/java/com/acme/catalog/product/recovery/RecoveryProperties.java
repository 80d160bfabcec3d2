package com.acme.catalog.product.recovery;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.recovery.*}: the recovery worker, its lease and its catch-up (docs/rebuild.md "Recovery worker";
 * docs/configuration.md lists the keys, and the deprecated {@code *-ms} and {@code *-seconds} ones they replace).
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
        @DefaultValue("PT30S") Duration leaseTtl, @DefaultValue("PT30S") Duration interval,
        @DefaultValue("PT2S") Duration gapGrace, @DefaultValue("PT1S") Duration initialBackoff,
        @DefaultValue("PT1M") Duration maxBackoff, @DefaultValue("1000") int pageLimit,
        @DefaultValue("20") int maxPagesPerCycle, @DefaultValue("PT1M") Duration resolverLeaseTtl) {

    RecoveryProperties {
        if (leaseTtl.getSeconds() < 1 || resolverLeaseTtl.getSeconds() < 1) {
            throw new IllegalArgumentException("product.recovery.lease-ttl and resolver-lease-ttl must be at least "
                    + "1 second, not " + leaseTtl + " and " + resolverLeaseTtl);
        }
        if (interval.toMillis() < 1) {
            throw new IllegalArgumentException("product.recovery.interval must be at least 1ms, not " + interval);
        }
        if (gapGrace.isNegative()) {
            throw new IllegalArgumentException("product.recovery.gap-grace must not be negative, not " + gapGrace);
        }
        if (initialBackoff.toMillis() < 1 || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("product.recovery needs 1ms <= initial-backoff <= max-backoff, not "
                    + initialBackoff + " and " + maxBackoff);
        }
        if (pageLimit < 1 || maxPagesPerCycle < 1) {
            throw new IllegalArgumentException("product.recovery.page-limit and max-pages-per-cycle must be at least "
                    + "1, not " + pageLimit + " and " + maxPagesPerCycle);
        }
    }
}
