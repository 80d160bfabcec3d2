package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * Lease expiry is decided by the database clock. The service's JVM {@link Clock} is replaced by one skewed far
 * ahead (and then far behind): leases still live and die by {@code clock_timestamp()} in SQL. The skew is
 * visibly in effect: the status endpoint's informational {@code observedAt} comes from the skewed clock.
 */
class LeaseServerTimeIT extends AbstractRetentionIT {

    static final SkewedClock CLOCK = new SkewedClock();

    @TestConfiguration
    static class SkewedClockConfiguration {
        @Bean
        @Primary
        Clock skewedClock() {
            return CLOCK;
        }
    }

    @AfterEach
    void noSkew() {
        CLOCK.skew = Duration.ZERO;
    }

    @Test
    void aJvmClockFarAheadStillSeesTheLeaseAliveEverywhere() {
        CLOCK.skew = Duration.ofDays(30);
        StreamId s = new StreamId("acme", "skew-ahead");
        write(s, 6);

        Response created = lease("op", s, 1, 120);
        assertThat(created.status()).isEqualTo(201);
        UUID leaseId = UUID.fromString(created.text("leaseId"));
        Instant expiresAt = Instant.parse(created.text("expiresAt"));
        Instant dbNow = databaseNow();
        assertThat(Duration.between(dbNow, expiresAt)).isBetween(Duration.ofSeconds(110), Duration.ofSeconds(121));
        assertThat(CLOCK.instant()).isAfter(expiresAt.plus(Duration.ofDays(29)));

        assertThat(retention.requireLiveLease(leaseId).pin()).isZero();
        Response renewed = post("/v1/retention/leases/" + leaseId + "/renew", "op", Map.of("ttlSeconds", 300));
        assertThat(renewed.status()).isEqualTo(200);
        assertThat(Duration.between(databaseNow(), Instant.parse(renewed.text("expiresAt"))))
                .isBetween(Duration.ofSeconds(290), Duration.ofSeconds(301));
        assertThat(retention.advancePin(leaseId, 3).pin()).isEqualTo(3);

        // the live lease holds pruning at its pin even though the JVM thinks it expired a month ago
        publishThrough(s, 6);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(3);

        Response status = get("/v1/retention/streams/acme/skew-ahead", "op");
        assertThat(status.body().path("leases")).hasSize(1);
        assertThat(status.body().path("blockedBy").get(0).path("kind").stringValue()).isEqualTo("lease");
        assertThat(Instant.parse(status.text("observedAt"))).isAfter(Instant.now().plus(Duration.ofDays(29)));
    }

    @Test
    void aJvmClockFarBehindDoesNotKeepAnExpiredLeaseAlive() throws Exception {
        CLOCK.skew = Duration.ofDays(-30);
        StreamId s = new StreamId("acme", "skew-behind");
        write(s, 4);
        Lease l = retention.pinRetention(s, 1, Duration.ofSeconds(1), "short");
        assertThat(Duration.between(databaseNow(), l.expiresAt())).isLessThanOrEqualTo(Duration.ofSeconds(1));
        Thread.sleep(1300);

        assertThatThrownBy(() -> retention.requireLiveLease(l.leaseId())).isInstanceOf(LeaseExpiredException.class);
        Response renewed = post("/v1/retention/leases/" + l.leaseId() + "/renew", "op", Map.of("ttlSeconds", 60));
        assertThat(renewed.status()).isEqualTo(410);
        assertThat(renewed.code()).isEqualTo("LEASE_EXPIRED");
        publishThrough(s, 4);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(4);
    }

    private Instant databaseNow() {
        return jdbc.sql("SELECT clock_timestamp()").query(java.sql.Timestamp.class).single().toInstant();
    }

    /** The system clock shifted by a settable amount. */
    static final class SkewedClock extends Clock {
        volatile Duration skew = Duration.ZERO;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(skew);
        }
    }
}
