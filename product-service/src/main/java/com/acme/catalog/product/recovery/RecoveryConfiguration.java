package com.acme.catalog.product.recovery;

import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.projection.ProjectionVersion;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Binds {@code product.recovery.*}, {@code product.rollbacks.*} and {@code product.streams}. The worker leases are
 * built here from this instance's id and the lease ttl (tests build several "instances" side by side from plain
 * values).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({RecoveryProperties.class, RollbackProperties.class, ProductStreamsProperties.class})
class RecoveryConfiguration {

    @Bean
    WorkerLeases workerLeases(JdbcClient jdbc, MeterRegistry meters, RecoveryProperties properties,
            ProjectionVersion version) {
        return new WorkerLeases(jdbc, meters, properties.instanceId(), properties.leaseTtl().toSeconds(),
                version.current());
    }
}
