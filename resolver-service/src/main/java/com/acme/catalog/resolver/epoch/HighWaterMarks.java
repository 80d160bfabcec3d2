package com.acme.catalog.resolver.epoch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.epoch.EpochRepository.Mark;
import com.acme.catalog.resolver.stream.CommitObserver;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * Records each stream's committed high-water mark in the control store, batched and off the write path: a commit
 * only raises an in-memory mark ({@link #committed}); every {@code control.high-water-mark-interval} one statement
 * raises every mark that moved ({@link #flush}). A failed flush keeps its marks for the next one. The recorded mark
 * lags the cursor by up to an interval (plus any outage of the store); rollback detection allows for that.
 *
 * <p>{@code resolver_high_water_marks_recorded_timestamp_seconds} (per instance) is when this instance last had
 * every committed position recorded (a flush that succeeded, or found nothing to record); 0 before the first.
 * {@code time() - } it is how far the recorded marks may lag this instance's commits: a failover of the resolver's
 * database that loses a tail younger than that is not behind the mark, and is caught only by a consumer ahead.
 */
@Component
class HighWaterMarks implements CommitObserver {

    private final EpochRepository epochs;
    private final Map<Key, Long> pending = new ConcurrentHashMap<>();
    private final AtomicLong recordedAtMillis = new AtomicLong();

    HighWaterMarks(EpochRepository epochs, MeterRegistry registry) {
        this.epochs = epochs;
        Gauge.builder("resolver.high.water.marks.recorded.timestamp.seconds", recordedAtMillis,
                        v -> v.get() / 1000.0)
                .description("when every position this instance committed was last recorded in the control store "
                        + "(Unix seconds; 0 before the first flush)")
                .register(registry);
    }

    @Override
    public void committed(StreamId stream, long epoch, long position) {
        pending.merge(new Key(stream, epoch), position, Math::max);
    }

    /** Records every pending mark in one statement; on failure they stay pending. */
    void flush() {
        List<Mark> marks = new ArrayList<>();
        for (Key k : List.copyOf(pending.keySet())) {
            Long position = pending.remove(k);
            if (position != null) {
                marks.add(new Mark(k.stream(), k.epoch(), position));
            }
        }
        long started = System.currentTimeMillis();
        if (marks.isEmpty()) {
            recordedAtMillis.accumulateAndGet(started, Math::max);
            return;
        }
        try {
            epochs.recordMarks(marks);
            recordedAtMillis.accumulateAndGet(started, Math::max);
        } catch (RuntimeException e) {
            for (Mark m : marks) {
                committed(m.stream(), m.epoch(), m.position());
            }
            if (!(e instanceof ApiException)) {
                throw e; // not an outage (those the store logs once and shows in resolver_control_store_up)
            }
        }
    }

    /** Marks not recorded yet (tests and diagnostics). */
    int pending() {
        return pending.size();
    }

    private record Key(StreamId stream, long epoch) {
    }
}
