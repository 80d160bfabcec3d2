package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.rebuild.*} settings; docs/rebuild.md lists them for operators, docs/configuration.md also the
 * deprecated {@code lease-ttl-seconds}, {@code poll-ms} and {@code test-pause-ms} they replace. The timeout of the
 * rebuild's resolver calls ({@code request-timeout}) is the resolver client's ({@code ResolverClientProperties}).
 *
 * @param leaseTtl           ttl of the resolver lease that pins retention for an attempt; renewed every third of it
 * @param pageLimit          events per catch-up page asked for (the resolver caps it at its own page limits)
 * @param maxAttempts        attempts of one rebuild (a 410 or a lost worker restarts it) before it is FAILED
 * @param pollInterval       pause between two export status reads while the export is RUNNING
 * @param workers            rebuilds this instance runs at once
 * @param maintenanceWorkMem PostgreSQL {@code maintenance_work_mem} of the load's transactions (index builds)
 * @param testPause          test only, empty in production: how long a rebuild is held at a probe point of a phase
 *                           ({@link TestPauses}), so crash tests can kill the process there
 */
@ConfigurationProperties("product.rebuild")
record RebuildProperties(@DefaultValue("PT2M") Duration leaseTtl, @DefaultValue("1000") int pageLimit,
        @DefaultValue("3") int maxAttempts, @DefaultValue("PT0.2S") Duration pollInterval,
        @DefaultValue("2") int workers, @DefaultValue("256MB") String maintenanceWorkMem,
        Map<RebuildPhase, Duration> testPause) {

    RebuildProperties {
        testPause = testPause == null ? Map.of() : Map.copyOf(testPause);
    }
}
