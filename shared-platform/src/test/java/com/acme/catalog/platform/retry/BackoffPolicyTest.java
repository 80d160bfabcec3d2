package com.acme.catalog.platform.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.Test;

class BackoffPolicyTest {

    /** The relay's defaults (relay.backoff-initial PT0.2S, relay.backoff-max PT30S). */
    private final BackoffPolicy relay = new BackoffPolicy(Duration.ofMillis(200), Duration.ofSeconds(30));

    @Test
    void doublesToTheCap() {
        assertThat(relay.pause(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(relay.pause(2)).isEqualTo(Duration.ofMillis(400));
        assertThat(relay.pause(8)).isEqualTo(Duration.ofMillis(25_600));
        assertThat(relay.pause(9)).isEqualTo(Duration.ofSeconds(30));
        assertThat(relay.pause(1_000)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void jitterStaysInTheUpperHalf() {
        Random random = new Random(42);
        for (int failures = 1; failures < 40; failures++) {
            Duration pause = relay.pause(failures);
            Duration jittered = relay.jitteredPause(failures, random);
            assertThat(jittered).isGreaterThanOrEqualTo(pause.dividedBy(2)).isLessThanOrEqualTo(pause);
        }
    }

    @Test
    void refusesZeroAndACapBelowTheInitial() {
        assertThatThrownBy(() -> new BackoffPolicy(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BackoffPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
