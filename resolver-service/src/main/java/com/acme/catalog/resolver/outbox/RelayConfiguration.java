package com.acme.catalog.resolver.outbox;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The relay's collaborators, each made once from {@code relay.*} and handed to {@link OutboxRelay}: the framing of a
 * delivery, the HTTP client that sends it, the publish ticker and the commit listener. They stay plain classes, so
 * their unit tests construct them directly.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelayProperties.class)
class RelayConfiguration {

    @Bean
    DeliveryFraming deliveryFraming(RelayProperties properties) {
        return new DeliveryFraming(properties.batchBytes(), properties.token());
    }

    @Bean
    DeliveryClient deliveryClient(DeliveryFraming framing, DeliveryUrlAllowlist allowlist, RelayProperties properties,
            MeterRegistry registry) {
        return new DeliveryClient(framing, allowlist, properties.timeout(), registry);
    }

    @Bean
    PublishTicker publishTicker(RelayRepository repository, RelayProperties properties) {
        return new PublishTicker(repository, properties.publishInterval(), properties.pollInterval());
    }

    /** Listens on a connection of its own, outside the pool, to the database the pool connects to. */
    @Bean
    CommitListener commitListener(HikariDataSource dataSource) {
        return new CommitListener(dataSource.getJdbcUrl(), dataSource.getUsername(), dataSource.getPassword());
    }
}
