package com.acme.catalog.resolver.epoch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The epochs this instance holds: each stream's current epoch and high-water mark as last read from the control
 * store, re-read for every held stream every {@code control.refresh-interval} in one statement, and trusted for
 * {@code control.grace} after the last successful read. A stream read for the first time is read synchronously;
 * one the store has no epoch for gets its first one issued ({@code "initial"}, by {@code "resolver"}).
 *
 * <p>When the store cannot be reached, {@link #current} keeps answering from what it holds until the grace runs
 * out, then fails closed with 503 {@code CONTROL_STORE_UNAVAILABLE}, without trying the store again until the
 * next refresh is due (so writes do not each wait for a connect timeout). {@code resolver_control_store_up} is 1
 * after a successful read or record, 0 after a failed one.
 */
@Component
class EpochCache {

    /** Issuer recorded for an epoch the resolver issued by itself (a stream's first). */
    static final String RESOLVER_ISSUER = "resolver";
    static final String INITIAL_REASON = "initial";

    private static final Logger log = LoggerFactory.getLogger(EpochCache.class);

    private final EpochRepository epochs;
    private final long graceNanos;
    private final long retryNanos;
    private final Map<StreamId, Held> held = new ConcurrentHashMap<>();
    private final AtomicInteger up = new AtomicInteger();
    private volatile long lastFailureNanos;
    private volatile boolean failing;

    EpochCache(EpochRepository epochs, ControlStoreProperties properties, MeterRegistry registry) {
        this.epochs = epochs;
        this.graceNanos = properties.grace().toNanos();
        this.retryNanos = properties.refreshInterval().toNanos();
        Gauge.builder("resolver.control.store.up", up, AtomicInteger::get)
                .description("1 while the control store (history epochs) answers, 0 after a failed read or record")
                .register(registry);
    }

    /**
     * The stream's current epoch as this instance holds it.
     *
     * @param firstEpoch the epoch to issue as the stream's first when the store has none (the epoch of its open
     *                   cursor in the resolver database, or 1 for a new stream)
     * @throws ApiException 503 {@code CONTROL_STORE_UNAVAILABLE} when nothing read within the grace is held and the
     *                      store cannot be read now
     */
    Held current(StreamId s, long firstEpoch) {
        Held h = held.get(s);
        long now = System.nanoTime();
        if (h != null && now - h.readAtNanos() < graceNanos) {
            return h;
        }
        if (failing && now - lastFailureNanos < retryNanos) {
            throw new ApiException(ProblemCode.CONTROL_STORE_UNAVAILABLE, "the control store did not answer "
                    + "(last failure " + (now - lastFailureNanos) / 1_000_000 + " ms ago) and the epoch of " + s
                    + " was last read more than control.grace ago: writes and the relay fail closed");
        }
        try {
            Current c = epochs.current(s)
                    .orElseGet(() -> epochs.issueFirst(s, firstEpoch, INITIAL_REASON, RESOLVER_ISSUER));
            reached();
            return hold(s, c.epoch(), c.highWaterMark());
        } catch (RuntimeException e) {
            failed(e);
            throw e instanceof ApiException api ? api
                    : new ApiException(ProblemCode.CONTROL_STORE_UNAVAILABLE, e.getMessage(), e);
        }
    }

    /** Re-reads every held stream (or pings the store when none is held); failures only mark the store down. */
    void refresh() {
        try {
            List<StreamId> streams = List.copyOf(held.keySet());
            if (streams.isEmpty()) {
                epochs.ping();
            } else {
                long now = System.nanoTime();
                for (Current c : epochs.currentOf(streams).values()) {
                    // epochs only grow: a read that raced with a rotation of this instance must not undo it
                    held.merge(c.stream(), new Held(c.epoch(), c.highWaterMark(), now),
                            (old, read) -> read.epoch() >= old.epoch() ? read : old);
                }
            }
            reached();
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** Holds what this instance just issued or learnt (a rotation), as read now. */
    Held hold(StreamId s, long epoch, long highWaterMark) {
        Held h = new Held(epoch, highWaterMark, System.nanoTime());
        held.put(s, h);
        return h;
    }

    /** Forgets the stream, so the next use reads the store (the database showed a newer epoch). */
    void forget(StreamId s) {
        held.remove(s);
    }

    /** Tells the cache a use of the store succeeded (also the high-water mark recorder's). */
    void reached() {
        if (failing) {
            log.info("control store answers again");
        }
        failing = false;
        up.set(1);
    }

    /** Tells the cache a use of the store failed. */
    void failed(RuntimeException e) {
        lastFailureNanos = System.nanoTime();
        if (!failing) {
            log.warn("control store unreachable: {}", e.toString());
        }
        failing = true;
        up.set(0);
    }

    /** A stream's epoch and high-water mark as read at {@code readAtNanos} ({@link System#nanoTime()}). */
    record Held(long epoch, long highWaterMark, long readAtNanos) {
    }
}
