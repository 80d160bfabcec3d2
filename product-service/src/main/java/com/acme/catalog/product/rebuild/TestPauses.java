package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.util.Map;

/**
 * Test only: the probe that holds a rebuild {@code product.rebuild.test-pause.<PHASE>} at the point of that
 * phase ({@link RebuildProbe}), so crash tests (RebuildCrashSystemIT, ChainDivergenceSystemIT) can kill the process
 * there. {@link RebuildConfiguration} uses it only when such a pause is set.
 */
final class TestPauses implements RebuildProbe {

    private final Map<RebuildPhase, Duration> pauses;

    TestPauses(Map<RebuildPhase, Duration> pauses) {
        this.pauses = Map.copyOf(pauses);
    }

    @Override
    public void reached(RebuildPhase phase) {
        Duration pause = pauses.getOrDefault(phase, Duration.ZERO);
        if (pause.compareTo(Duration.ZERO) > 0) {
            try {
                Thread.sleep(pause.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted in the test pause of " + phase, e);
            }
        }
    }
}
