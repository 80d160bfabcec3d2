package com.acme.catalog.resolver.export;

import java.util.List;
import java.util.UUID;

import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ChainDigestAt;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.export.CatchUpRepository.StoredEvent;
import com.acme.catalog.resolver.retention.Lease;
import com.acme.catalog.resolver.retention.LeaseExpiredException;
import com.acme.catalog.resolver.retention.RetentionService;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 6: one bounded page of retained events after {@code after}. The page, P, the cursor and the
 * digest before the page are read in one snapshot, so the page is exactly positions after+1..through with nothing
 * missing; the lease is checked before and again after reading (fail closed).
 */
@Service
class CatchUpService {

    private final RetentionService retention;
    private final CursorRepository cursors;
    private final CatchUpRepository outbox;
    private final ExportProperties properties;
    private final TransactionTemplate snapshot;

    CatchUpService(RetentionService retention, CursorRepository cursors, CatchUpRepository outbox,
            ExportProperties properties, PlatformTransactionManager tm) {
        this.retention = retention;
        this.cursors = cursors;
        this.outbox = outbox;
        this.properties = properties;
        this.snapshot = Snapshots.readOnly(tm);
    }

    /**
     * @throws LeaseExpiredException (410 {@code LEASE_EXPIRED}) for an expired, released or unknown lease
     * @throws ApiException 410 {@code EPOCH_CHANGED} when {@code historyEpoch} is not the stream's open epoch (or
     *                      the lease's), 410 {@code CURSOR_STALE} when {@code after} is below P, 422
     *                      {@code POSITION_AHEAD} beyond the cursor, 400 for a lease of another stream
     */
    Page page(StreamId s, long after, UUID leaseId, long historyEpoch, Integer limit) {
        int n = limit == null ? properties.page().defaultLimit() : Math.min(limit, properties.page().maxLimit());
        Lease lease = liveLease(leaseId);
        if (!lease.stream().equals(s)) {
            throw new ApiException(ProblemCode.INVALID_BODY, "lease %s belongs to stream %s, not %s"
                    .formatted(leaseId, lease.stream(), s));
        }
        Page page = snapshot.execute(status -> read(s, after, lease, historyEpoch, n));
        liveLease(leaseId);
        return page;
    }

    private Page read(StreamId s, long after, Lease lease, long historyEpoch, int limit) {
        Cursor open = cursors.read(s).orElse(null);
        if (open == null && outbox.anyCursor(s)) {
            throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream " + s + " has no open history epoch (fenced)");
        }
        long epoch = open == null ? 1 : open.epoch();
        if (historyEpoch != epoch || lease.epoch() != epoch) {
            throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream %s is in epoch %d; history_epoch is %d and "
                    .formatted(s, epoch, historyEpoch) + "lease " + lease.leaseId() + " belongs to " + lease.epoch()
                    + "; restart from a new export");
        }
        long p = retention.prunedThrough(s, epoch);
        if (after < p) {
            throw new ApiException(ProblemCode.CURSOR_STALE, "events of %s epoch %d through %d are pruned; after=%d "
                    .formatted(s, epoch, p, after) + "is stale: restart from a new export");
        }
        long head = open == null ? 0 : open.position();
        if (after > head) {
            throw new ApiException(ProblemCode.POSITION_AHEAD, "after=%d is ahead of the cursor %d of %s epoch %d"
                    .formatted(after, head, s, epoch));
        }
        String digestAfter = digestAt(s, epoch, after, open);
        List<StoredEvent> events = outbox.page(s, epoch, after, head, limit, properties.page().maxBytes().toBytes());
        long expected = after;
        for (StoredEvent e : events) {
            if (e.position() != ++expected) {
                throw new IllegalStateException("outbox of %s epoch %d misses position %d below the cursor %d"
                        .formatted(s, epoch, expected, head));
            }
        }
        long through = events.isEmpty() ? after : events.get(events.size() - 1).position();
        String digestThrough = events.isEmpty() ? digestAfter : events.get(events.size() - 1).chainDigest();
        return new Page(s, epoch, after, through, digestAfter, digestThrough, head, events);
    }

    private String digestAt(StreamId s, long epoch, long position, Cursor open) {
        if (position == 0) {
            return ChainDigest.ZERO;
        }
        if (open != null && position == open.position()) {
            return open.chainDigest();
        }
        return outbox.digestAt(s, epoch, position)
                .or(() -> outbox.prunedDigestAt(s, epoch, position))
                .orElseThrow(() -> new ApiException(ProblemCode.CURSOR_STALE, "the chain digest at %d of %s epoch %d "
                        .formatted(position, s, epoch) + "is no longer known; restart from a new export"));
    }

    /**
     * The chain digest at {@code position} of the stream's open epoch and the head, read in one snapshot.
     *
     * @param epoch the epoch the caller verified its digest in; null for whichever is open
     * @throws ApiException 410 {@code EPOCH_CHANGED} when that is not the open epoch (or none is open), 410
     *                      {@code CURSOR_STALE} below P (the digest is no longer known), 422 {@code POSITION_AHEAD}
     *                      beyond the cursor
     */
    ChainDigestAt digestAt(StreamId s, Long epoch, long position) {
        return snapshot.execute(status -> {
            Cursor open = cursors.read(s).orElse(null);
            if (open == null && outbox.anyCursor(s)) {
                throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream " + s + " has no open history epoch (fenced)");
            }
            long current = open == null ? 1 : open.epoch();
            if (epoch != null && epoch != current) {
                throw new ApiException(ProblemCode.EPOCH_CHANGED, "stream %s is in epoch %d, not %d"
                        .formatted(s, current, epoch));
            }
            long head = open == null ? 0 : open.position();
            if (position > head) {
                throw new ApiException(ProblemCode.POSITION_AHEAD, "position %d is ahead of the cursor %d of %s epoch %d"
                        .formatted(position, head, s, current));
            }
            if (position < retention.prunedThrough(s, current)) {
                throw new ApiException(ProblemCode.CURSOR_STALE, "the chain digest at %d of %s epoch %d is pruned"
                        .formatted(position, s, current));
            }
            return new ChainDigestAt(s.tenant(), s.catalog(), current, position, digestAt(s, current, position, open),
                    head);
        });
    }

    private Lease liveLease(UUID leaseId) {
        try {
            return retention.requireLiveLease(leaseId);
        } catch (LeaseExpiredException e) {
            throw e;
        } catch (ApiException e) {
            if (e.code() == ProblemCode.NOT_FOUND) {
                // ended leases are deleted after retention.lease.keep-ended; unknown reads as ended
                throw new LeaseExpiredException(leaseId, "lease " + leaseId + " does not exist (or ended long ago)");
            }
            throw e;
        }
    }

    /** One page: events after {@code after} through {@code through}, with the chain digests around it. */
    record Page(StreamId stream, long epoch, long after, long through, String chainDigestAfter,
            String chainDigestThrough, long head, List<StoredEvent> events) {
    }
}
