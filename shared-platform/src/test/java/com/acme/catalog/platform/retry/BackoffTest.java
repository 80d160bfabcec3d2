package com.acme.catalog.platform.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class BackoffTest {

    /** A clock the test moves by hand. */
    static final class FakeClock extends Clock {
        Instant now = Instant.parse("2026-11-30T09:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void doublesFromTheInitialDelayUpToTheCapAndStaysThere() {
        FakeClock clock = new FakeClock();
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), clock);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            waits.add(b.failed().toSeconds());
        }
        assertThat(waits.subList(0, 8)).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L);
        assertThat(waits.subList(8, 70)).containsOnly(60L);
        assertThat(b.failures()).isEqualTo(70);
    }

    @Test
    void theNextAttemptIsDueOnlyAfterTheWaitAndASuccessResets() {
        FakeClock clock = new FakeClock();
        Backoff b = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(10), clock);
        assertThat(b.remaining()).isZero();
        b.failed();
        b.failed();
        assertThat(b.remaining()).isEqualTo(Duration.ofSeconds(1));
        clock.now = clock.now.plusMillis(400);
        assertThat(b.remaining()).isEqualTo(Duration.ofMillis(600));
        clock.now = clock.now.plusMillis(600);
        assertThat(b.remaining()).isZero();

        b.succeeded();
        assertThat(b.failures()).isZero();
        assertThat(b.failed()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void refusesACapBelowTheInitialDelay() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
