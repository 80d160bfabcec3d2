package com.acme.catalog.product.completeness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.epoch.StreamRollbacks;
import com.acme.catalog.product.rebuild.Rebuild;
import com.acme.catalog.product.rebuild.RebuildPhase;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.recovery.RecoveryStatusRepository;
import com.acme.catalog.product.recovery.SweepVerifications;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The periodic refresh of {@code product_completeness_state} reads every stream's inputs in one statement each, not
 * one set of statements per stream (docs/streams.md: nothing per stream for quiet streams), and derives the same
 * states as the per-stream read.
 */
class CompletenessRefreshTest {

    private static final int STREAMS = 500;

    @Test
    void refreshReadsAllStreamsAtOnceAndDerivesTheirStates() {
        CompletenessRepository repository = mock(CompletenessRepository.class);
        RebuildService rebuilds = mock(RebuildService.class);
        RecoveryStatusRepository recovery = mock(RecoveryStatusRepository.class);
        StreamEpochs epochs = mock(StreamEpochs.class);
        when(epochs.current(any())).thenReturn(1L);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Map<StreamId, CompletenessRepository.Serving> serving = new HashMap<>();
        for (int i = 0; i < STREAMS; i++) {
            long parked = i % 10 == 0 ? 1 : 0; // every tenth stream waits for a dependency
            serving.put(new StreamId("t", "c" + i), new CompletenessRepository.Serving(i + 1, 1, 7, 7, 7,
                    Instant.now(), parked, 0, null, "0".repeat(64)));
        }
        StreamId rebuilding = new StreamId("t", "new");
        when(repository.allServing()).thenReturn(serving);
        when(repository.allWorkerLeases()).thenReturn(Map.of());
        when(recovery.all()).thenReturn(Map.of());
        when(rebuilds.latestOfAll()).thenReturn(Map.of(rebuilding, new Rebuild(UUID.randomUUID(), rebuilding,
                RebuildPhase.LOADING, 1, null, 0, null, 0, 0, null, Instant.now())));
        CompletenessService service = new CompletenessService(repository, rebuilds, recovery, meters, epochs,
                new CompletenessProperties(Duration.ofSeconds(10), Duration.ofSeconds(60)), mock(OldEpochAudit.class),
                new SweepVerifications(), mock(StreamRollbacks.class));

        service.refresh();

        verify(repository, times(1)).allServing();
        verify(rebuilds, times(1)).latestOfAll();
        verify(repository, never()).serving(any());
        verify(repository, never()).workerLease(any());
        verify(rebuilds, never()).latest(any());
        verify(recovery, never()).find(any());
        assertThat(state(meters, "c0")).isEqualTo(CompletenessState.BLOCKED.code());
        assertThat(state(meters, "c1")).isEqualTo(CompletenessState.CURRENT.code());
        assertThat(state(meters, "new")).isEqualTo(CompletenessState.CATCHING_UP.code());
        assertThat(meters.find("product.completeness.state").gauges()).hasSize(STREAMS + 1);
    }

    private static double state(SimpleMeterRegistry meters, String catalog) {
        return meters.get("product.completeness.state").tag("catalog", catalog).gauge().value();
    }
}
