package com.acme.catalog.resolver.epoch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;
import com.acme.catalog.resolver.stream.CommitObserver;

import org.springframework.stereotype.Component;

/**
 * The epochs this instance holds: each stream's current epoch and high-water mark as last read from the control
 * store, re-read for every held stream every {@code control.refresh-interval} in one statement, and trusted for
 * {@code control.grace} after the last successful read. A stream no write or delivery asked for during
 * {@code control.hold-idle} is let go at the next refresh, so the refresh follows activity: a thousand quiet streams
 * cost it nothing, and a quiet stream's next write reads the store once, as its first write did. A stream read for the first time is read synchronously;
 * one the store has no epoch for gets its first one issued ({@code "initial"}, by {@code "resolver"}).
 *
 * <p>When the store cannot be reached, {@link #current} keeps answering from what it holds until the grace runs
 * out, then fails closed with 503 {@code CONTROL_STORE_UNAVAILABLE}, without trying the store again until the
 * next refresh is due (so writes do not each wait for a connect timeout).
 */
@Component
class EpochCache implements CommitObserver {

    /** Issuer recorded for an epoch the resolver issued by itself (a stream's first). */
    static final String RESOLVER_ISSUER = "resolver";
    static final String INITIAL_REASON = "initial";

    private final EpochRepository epochs;
    private final ControlStore store;
    private final long graceNanos;
    private final long retryNanos;
    private final long holdIdleNanos;
    private final Map<StreamId, Held> held = new ConcurrentHashMap<>();
    /** When each held stream was last asked for ({@link System#nanoTime()}). */
    private final Map<StreamId, Long> usedAt = new ConcurrentHashMap<>();

    EpochCache(EpochRepository epochs, ControlStore store, ControlStoreProperties properties) {
        this.epochs = epochs;
        this.store = store;
        this.graceNanos = properties.grace().toNanos();
        this.retryNanos = properties.refreshInterval().toNanos();
        this.holdIdleNanos = properties.holdIdle().toNanos();
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
        usedAt.put(s, now);
        if (h != null && now - h.readAtNanos() < graceNanos) {
            return h;
        }
        if (store.failedWithin(retryNanos)) {
            throw new ApiException(ProblemCode.CONTROL_STORE_UNAVAILABLE, "the control store did not answer and "
                    + "the epoch of " + s + " was last read more than control.grace ago: writes and the relay fail "
                    + "closed until it answers");
        }
        Current c = epochs.current(s)
                .orElseGet(() -> epochs.issueFirst(s, firstEpoch, INITIAL_REASON, RESOLVER_ISSUER));
        return hold(s, c.epoch(), c.highWaterMark());
    }

    /**
     * Lets go of the streams idle for {@code control.hold-idle}, then re-reads every other held stream (or pings
     * the store when none is held); a failure only leaves them to age.
     */
    void refresh() {
        letGoOfIdle(System.nanoTime());
        try {
            List<StreamId> streams = List.copyOf(held.keySet());
            if (streams.isEmpty()) {
                epochs.ping();
                return;
            }
            long now = System.nanoTime();
            for (Current c : epochs.currentOf(streams).values()) {
                // epochs only grow: a read that raced with a rotation of this instance must not undo it
                held.merge(c.stream(), new Held(c.epoch(), c.highWaterMark(), 0, now), Held::newer);
            }
        } catch (ApiException unavailable) {
            // recorded by the store; the held epochs age until the grace runs out
        }
    }

    /** Holds what this instance just issued or learnt (a rotation), as read now. */
    Held hold(StreamId s, long epoch, long highWaterMark) {
        long now = System.nanoTime();
        usedAt.putIfAbsent(s, now);
        return held.merge(s, new Held(epoch, highWaterMark, 0, now), Held::newer);
    }

    /**
     * A rotation of this instance opened {@code epoch} for the stream: held from now on if the stream is held (its
     * next write then needs no read of the store), else left to be read at its next use.
     */
    void rotated(StreamId s, long epoch) {
        long now = System.nanoTime();
        held.computeIfPresent(s, (k, h) -> Held.newer(h, new Held(epoch, 0, 0, now)));
    }

    /**
     * Raises what this instance knows it acknowledged in the held epoch: a write whose locked cursor is below it
     * sees a database that lost commits this instance answered (a failover to a replica that had not received
     * them), before any of them is recorded in the store or a check ran. Commits of another epoch than the held
     * one are ignored (a rotation happened meanwhile, or the stream is not held).
     */
    @Override
    public void committed(StreamId s, long epoch, long position) {
        held.computeIfPresent(s, (k, h) -> h.epoch() == epoch && position > h.acknowledged()
                ? new Held(h.epoch(), h.highWaterMark(), position, h.readAtNanos()) : h);
    }

    /** Forgets the stream, so the next use reads the store (the database showed a newer epoch). */
    void forget(StreamId s) {
        held.remove(s);
    }

    /** How many streams this instance holds (the refresh re-reads each of them). */
    int heldCount() {
        return held.size();
    }

    private void letGoOfIdle(long now) {
        usedAt.entrySet().removeIf(e -> {
            if (now - e.getValue() < holdIdleNanos) {
                return false;
            }
            held.remove(e.getKey());
            return true;
        });
    }

    /**
     * A stream's epoch and high-water mark as read at {@code readAtNanos} ({@link System#nanoTime()}), and the
     * highest position of that epoch this instance committed since it holds it ({@code acknowledged}).
     */
    record Held(long epoch, long highWaterMark, long acknowledged, long readAtNanos) {

        /** The position no cursor of this epoch may be below: the recorded mark or what this instance committed. */
        long committedAtLeast() {
            return Math.max(highWaterMark, acknowledged);
        }

        /**
         * A fresh read merged into what is held: epochs only grow (a read that raced with a rotation of this
         * instance must not undo it), and within one epoch what this instance acknowledged is kept.
         */
        static Held newer(Held old, Held read) {
            if (read.epoch() > old.epoch()) {
                return read;
            }
            if (read.epoch() < old.epoch()) {
                return old;
            }
            return new Held(read.epoch(), read.highWaterMark(), old.acknowledged(), read.readAtNanos());
        }
    }
}
