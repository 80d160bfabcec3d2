package com.acme.catalog.resolver.outbox;

import java.time.Duration;

import com.acme.catalog.platform.retry.BackoffPolicy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code relay.*}: the outbox relay that pushes events to consumers' delivery URLs (docs/relay.md).
 *
 * @param enabled        whether this instance relays at all
 * @param token          bearer sent to consumers ({@code RELAY_TOKEN})
 * @param pollInterval   safety-net poll when no commit notification arrives
 * @param batchEvents    most events per delivery
 * @param batchBytes     most wire bytes per delivery (one event larger than this still goes alone)
 * @param timeout        HTTP timeout of one delivery
 * @param claim          how long a delivery claim lasts before another instance may take over
 * @param backoffInitial first retry delay after a failed delivery
 * @param backoffMax     retry delay cap
 * @param workers        deliveries in flight at once (each to a different consumer)
 * @param publishInterval how often, at most, delivered events are marked published (off the delivery path)
 */
@ConfigurationProperties("relay")
record RelayProperties(@DefaultValue("true") boolean enabled, @DefaultValue("") String token,
        @DefaultValue("PT1S") Duration pollInterval, @DefaultValue("500") int batchEvents,
        @DefaultValue("1048576") int batchBytes, @DefaultValue("PT10S") Duration timeout,
        @DefaultValue("PT30S") Duration claim, @DefaultValue("PT0.2S") Duration backoffInitial,
        @DefaultValue("PT30S") Duration backoffMax, @DefaultValue("4") int workers,
        @DefaultValue("PT0.2S") Duration publishInterval) {

    RelayProperties {
        new BackoffPolicy(backoffInitial, backoffMax); // refuses 0 or a cap below the initial at start
    }

    /** The retry pause after failed deliveries: {@code backoffInitial} doubling to {@code backoffMax}. */
    BackoffPolicy backoff() {
        return new BackoffPolicy(backoffInitial, backoffMax);
    }
}
