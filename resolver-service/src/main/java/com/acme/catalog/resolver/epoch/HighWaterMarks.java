package com.acme.catalog.resolver.epoch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.epoch.EpochRepository.Mark;
import com.acme.catalog.resolver.stream.CommitObserver;

import org.springframework.stereotype.Component;

/**
 * Records each stream's committed high-water mark in the control store, batched and off the write path: a commit
 * only raises an in-memory mark ({@link #committed}); every {@code control.high-water-mark-interval} one statement
 * raises every mark that moved ({@link #flush}). A failed flush keeps its marks for the next one. The recorded mark
 * lags the cursor by up to an interval (plus any outage of the store); rollback detection allows for that.
 */
@Component
class HighWaterMarks implements CommitObserver {

    private final EpochRepository epochs;
    private final Map<Key, Long> pending = new ConcurrentHashMap<>();

    HighWaterMarks(EpochRepository epochs) {
        this.epochs = epochs;
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
        if (marks.isEmpty()) {
            return;
        }
        try {
            epochs.recordMarks(marks);
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
