package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.rebuild.*} settings; docs/rebuild.md lists them for operators, docs/configuration.md the concurrency
 * ({@code workers}) and the deprecated {@code lease-ttl-seconds}, {@code poll-ms}, {@code test-pause-ms} and
 * {@code max-attempts}. The timeout of the rebuild's resolver calls ({@code request-timeout}) is the resolver
 * client's ({@code ResolverClientProperties}).
 *
 * @param leaseTtl           ttl of the resolver lease that pins retention for an attempt; renewed every third of it
 * @param pageLimit          events per catch-up page asked for (the resolver caps it at its own page limits)
 * @param maxAttempts        deprecated and ignored (a warning at start): a rebuild retries for {@code retryBudget},
 *                           not a number of attempts; null when not set
 * @param retryBudget        how long after its first retried failure a rebuild keeps retrying failures that say
 *                           nothing about the data; the first such failure after it ends the rebuild FAILED
 * @param retryInitialDelay  pause before the first retry; each further one doubles it, up to {@code retryMaxDelay}
 * @param retryMaxDelay      the longest pause between two attempts
 * @param pollInterval       pause between two export status reads while the export is RUNNING
 * @param workers            the rebuild concurrency: how many rebuilds this instance runs at once (one thread each);
 *                           the others wait for a thread, their rows in their phase; at least 1
 * @param maintenanceWorkMem PostgreSQL {@code maintenance_work_mem} of the load's transactions (index builds)
 * @param testPause          test only, empty in production: how long a rebuild is held at a probe point of a phase
 *                           ({@link TestPauses}), so crash tests can kill the process there
 */
@ConfigurationProperties("product.rebuild")
record RebuildProperties(@DefaultValue("PT2M") Duration leaseTtl, @DefaultValue("1000") int pageLimit,
        Integer maxAttempts, @DefaultValue("PT30M") Duration retryBudget,
        @DefaultValue("PT1S") Duration retryInitialDelay, @DefaultValue("PT1M") Duration retryMaxDelay,
        @DefaultValue("PT0.2S") Duration pollInterval, @DefaultValue("2") int workers,
        @DefaultValue("256MB") String maintenanceWorkMem, Map<RebuildPhase, Duration> testPause) {

    RebuildProperties {
        testPause = testPause == null ? Map.of() : Map.copyOf(testPause);
        if (retryBudget.isNegative() || retryInitialDelay.isNegative() || retryMaxDelay.isNegative()) {
            throw new IllegalArgumentException("product.rebuild.retry-budget, retry-initial-delay and retry-max-delay "
                    + "must not be negative");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("product.rebuild.workers must be at least 1 (how many rebuilds this "
                    + "instance runs at once), not " + workers);
        }
    }

    /** @return the pause before the attempt after {@code retries} retried failures (1 for the first): doubling, capped */
    Duration retryDelay(int retries) {
        Duration d = retryInitialDelay;
        for (int i = 1; i < retries && d.compareTo(retryMaxDelay) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(retryMaxDelay) > 0 ? retryMaxDelay : d;
    }
}
