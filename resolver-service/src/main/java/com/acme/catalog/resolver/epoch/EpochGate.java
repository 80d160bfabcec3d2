package com.acme.catalog.resolver.epoch;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.epoch.EpochCache.Held;
import com.acme.catalog.resolver.outbox.RelayGate;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.WriteGate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The write path's and the relay's gate (docs/epochs.md). A write commits only if, on the cursor row it locked:
 * the service is not in maintenance; no rollback is recorded; the row's epoch is the one this instance holds as
 * current (a newer one: this instance is stale, 503 {@code STREAM_FENCED}; an older one: the database is from
 * before the control store's current epoch, 503 {@code HISTORY_ROLLED_BACK}); and the row's position is not behind
 * the high-water mark held for that epoch (503 {@code HISTORY_ROLLED_BACK}). The epoch comes from the control
 * store within its grace (503 {@code CONTROL_STORE_UNAVAILABLE} otherwise).
 *
 * <p>The row is the one the transaction commits to, so a stale instance is fenced by the database itself: a
 * rotation by any instance fenced the old row and opened a new one, whatever this instance's cache says.
 */
@Component
class EpochGate implements WriteGate, RelayGate {

    private static final Logger log = LoggerFactory.getLogger(EpochGate.class);

    private final EpochCache cache;
    private final EpochScheduler scheduler;

    EpochGate(EpochCache cache, EpochScheduler scheduler) {
        this.cache = cache;
        this.scheduler = scheduler;
    }

    @Override
    public long epochToOpen(StreamId stream) {
        return cache.current(stream, 1).epoch();
    }

    @Override
    public void admit(StreamId stream, CursorLock lock) {
        if (lock.maintenance()) {
            throw MaintenanceSwitch.refused("writes");
        }
        Cursor c = lock.cursor();
        Held held = cache.current(stream, c.epoch());
        if (lock.rolledBack()) {
            throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, "the history of " + stream + " epoch "
                    + c.epoch() + " was rolled back (a restore without a new epoch): writes and the relay are "
                    + "refused until an operator rotates its epoch (docs/epochs.md)");
        }
        judge(stream, c.epoch(), c.position(), held);
        if (c.position() < held.acknowledged()) {
            scheduler.checkSoon();
            throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, "the cursor of %s epoch %d is at %d, behind "
                    .formatted(stream, c.epoch(), c.position()) + "position " + held.acknowledged() + " this "
                    + "instance committed and answered: the database lost acknowledged commits (a failover to a "
                    + "replica behind the primary, or a restore); writes and the relay are refused until an "
                    + "operator rotates its epoch (docs/runbooks/failover.md)");
        }
    }

    @Override
    public boolean mayRelay(StreamId stream, long epoch, long head) {
        try {
            judge(stream, epoch, head, cache.current(stream, epoch));
            return true;
        } catch (ApiException refused) {
            log.debug("relay of {} epoch {} paused: {}", stream, epoch, refused.getMessage());
            return false;
        }
    }

    private void judge(StreamId stream, long epoch, long position, Held held) {
        if (epoch > held.epoch()) {
            cache.forget(stream);
            throw new ApiException(ProblemCode.STREAM_FENCED, "this instance held epoch %d of %s, but the stream is in "
                    .formatted(held.epoch(), stream) + "epoch " + epoch + " (rotated); retry");
        }
        if (epoch < held.epoch()) {
            scheduler.checkSoon();
            throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, "the resolver database is in epoch %d of %s, "
                    .formatted(epoch, stream) + "but the control store issued epoch " + held.epoch() + ": the "
                    + "database is from before it (a restore, or a rotation that did not finish); rotate the epoch");
        }
        if (position < held.highWaterMark()) {
            scheduler.checkSoon();
            throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, "the cursor of %s epoch %d is at %d, behind the "
                    .formatted(stream, epoch, position) + "control store's high-water mark " + held.highWaterMark()
                    + ": the database was rolled back; writes and the relay are refused until an operator rotates "
                    + "its epoch (docs/epochs.md)");
        }
    }
}
