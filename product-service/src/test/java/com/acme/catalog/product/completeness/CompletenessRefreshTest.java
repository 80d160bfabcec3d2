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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * The periodic refresh of {@code product_completeness_state} and {@code product_streams} reads every stream's inputs
 * in two statements (the inputs, the latest rebuilds), not one set of statements per stream (docs/streams.md: nothing
 * per stream for quiet streams), and derives the same states as the per-stream read.
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
        List<CompletenessRepository.StreamInputs> inputs = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            long parked = i % 10 == 0 ? 1 : 0; // every tenth stream waits for a dependency
            inputs.add(new CompletenessRepository.StreamInputs(new StreamId("t", "c" + i), Optional.of(
                    new CompletenessRepository.Serving(i + 1, 1, 7, 7, 7, Instant.now(), parked, 0, null,
                            "0".repeat(64))), Optional.empty(), Optional.empty()));
        }
        StreamId rebuilding = new StreamId("t", "new");
        when(repository.fleet()).thenReturn(inputs);
        when(rebuilds.latestOfAll()).thenReturn(Map.of(rebuilding, new Rebuild(UUID.randomUUID(), rebuilding,
                RebuildPhase.LOADING, 1, null, 0, null, 0, 0, null, Instant.now())));
        CompletenessService service = new CompletenessService(repository, rebuilds, recovery, meters, epochs,
                new CompletenessProperties(Duration.ofSeconds(10), Duration.ofSeconds(60)), mock(OldEpochAudit.class),
                new SweepVerifications(), mock(StreamRollbacks.class));

        service.refresh();

        verify(repository, times(1)).fleet();
        verify(rebuilds, times(1)).latestOfAll();
        verify(repository, never()).serving(any());
        verify(repository, never()).workerLease(any());
        verify(rebuilds, never()).latest(any());
        verify(recovery, never()).find(any());
        verify(recovery, never()).all();
        assertThat(state(meters, "c0")).isEqualTo(CompletenessState.BLOCKED.code());
        assertThat(state(meters, "c1")).isEqualTo(CompletenessState.CURRENT.code());
        assertThat(state(meters, "new")).isEqualTo(CompletenessState.CATCHING_UP.code());
        assertThat(meters.find("product.completeness.state").gauges()).hasSize(STREAMS + 1);
        // product_streams{state}: one series per state, counting the streams
        assertThat(meters.find("product.streams").gauges()).hasSize(CompletenessState.values().length);
        assertThat(streams(meters, CompletenessState.BLOCKED)).isEqualTo(STREAMS / 10);
        assertThat(streams(meters, CompletenessState.CURRENT)).isEqualTo(STREAMS - STREAMS / 10);
        assertThat(streams(meters, CompletenessState.CATCHING_UP)).isEqualTo(1);
        assertThat(streams(meters, CompletenessState.RETRYING)).isZero();
    }

    private static double streams(SimpleMeterRegistry meters, CompletenessState state) {
        return meters.get("product.streams").tag("state", state.name()).gauge().value();
    }

    private static double state(SimpleMeterRegistry meters, String catalog) {
        return meters.get("product.completeness.state").tag("catalog", catalog).gauge().value();
    }
}
