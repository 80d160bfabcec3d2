package com.acme.catalog.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** Which streams the restore scenario gives a lost tail, and which it samples. */
class RestoreScenarioTest {

    private static List<String> streams(int n) {
        return IntStream.range(0, n).mapToObj(i -> "t" + (i % 10) + "/c" + i).toList();
    }

    @Test
    void theLostFractionIsRoundedAndNeverZeroWhenAsked() {
        assertThat(RestoreScenario.affected(streams(10_000), 0.10)).hasSize(1_000);
        assertThat(RestoreScenario.affected(streams(10_000), 0.01)).hasSize(100);
        assertThat(RestoreScenario.affected(streams(10), 0.10)).containsExactly("t0/c0");
        assertThat(RestoreScenario.affected(streams(10), 0.01)).hasSize(1);
        assertThat(RestoreScenario.affected(streams(10), 0)).isEmpty();
        assertThat(RestoreScenario.affected(streams(10), 1)).hasSize(10);
    }

    @Test
    void aSampleIsSpreadEvenlyWithoutRepeats() {
        List<String> sample = RestoreScenario.spread(streams(1_000), 100);
        assertThat(new HashSet<>(sample)).hasSize(100);
        assertThat(sample).startsWith("t0/c0", "t0/c10", "t0/c20").endsWith("t0/c990");
        assertThat(RestoreScenario.spread(streams(5), 100)).isEqualTo(streams(5));
    }
}
