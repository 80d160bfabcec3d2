package com.acme.catalog.resolver.retention;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.ConsumerRepository.ConsumerRegistration;
import com.acme.catalog.resolver.retention.LeaseRepository.LeaseRow;
import com.acme.catalog.resolver.retention.RetainedOutboxRepository.Scan;
import com.acme.catalog.resolver.retention.RetentionRepository.EpochCursor;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamHead;
import com.acme.catalog.resolver.retention.RetentionStatus.ConsumerView;
import com.acme.catalog.resolver.retention.RetentionStatus.LeaseView;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads {@link RetentionStatus} in one REPEATABLE READ snapshot, so cursor, P and outbox rows agree. Reads of one
 * stream (the periodic refresh and HTTP requests) take turns, each snapshot taken after the previous read of the
 * stream ended, so {@link RetainedOutboxScanner} can build on what the previous read verified.
 */
@Component
class RetentionStatusReader {

    private final TransactionTemplate snapshot;
    private final RetentionRepository retention;
    private final ConsumerRepository consumers;
    private final LeaseRepository leases;
    private final RetainedOutboxRepository outbox;
    private final RetainedOutboxScanner scanner;
    private final RetentionProperties properties;
    private final Clock clock;
    private final Map<StreamId, ReentrantLock> turns = new ConcurrentHashMap<>();

    RetentionStatusReader(PlatformTransactionManager txManager, RetentionRepository retention,
            ConsumerRepository consumers, LeaseRepository leases, RetainedOutboxRepository outbox,
            RetainedOutboxScanner scanner, RetentionProperties properties, Clock clock) {
        this.snapshot = Snapshots.readOnly(txManager);
        this.retention = retention;
        this.consumers = consumers;
        this.leases = leases;
        this.outbox = outbox;
        this.scanner = scanner;
        this.properties = properties;
        this.clock = clock;
    }

    /**
     * @param epoch the epoch to report, or null for the stream's open epoch
     * @throws ApiException {@code NOT_FOUND} for a stream retention knows nothing about, or an unknown epoch
     */
    RetentionStatus read(StreamId s, Long epoch) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            // the caller's transaction may have taken its snapshot before an earlier read of s: scan it all
            return readInSnapshot(s, epoch, false);
        }
        ReentrantLock turn = turns.computeIfAbsent(s, k -> new ReentrantLock());
        turn.lock();
        try {
            return readInSnapshot(s, epoch, true);
        } finally {
            turn.unlock();
        }
    }

    /** The same status from a scan of every retained row, leaving what incremental reads remember alone. */
    RetentionStatus readFull(StreamId s, Long epoch) {
        return readInSnapshot(s, epoch, false);
    }

    private RetentionStatus readInSnapshot(StreamId s, Long epoch, boolean incremental) {
        return snapshot.execute(status -> {
            long e;
            long cursor;
            if (epoch == null) {
                StreamHead head = retention.openHead(s);
                if (!head.written() && !retention.retentionKnown(s)) {
                    throw new ApiException(ProblemCode.NOT_FOUND, "stream " + s + " has no cursor and no retention");
                }
                e = head.epoch();
                cursor = head.position();
            } else {
                e = epoch;
                cursor = retention.epochCursor(s, e).map(EpochCursor::position).orElseThrow(() ->
                        new ApiException(ProblemCode.NOT_FOUND, "stream " + s + " has no epoch " + epoch));
            }
            return build(s, e, cursor, incremental);
        });
    }

    private RetentionStatus build(StreamId s, long epoch, long cursor, boolean incremental) {
        long p = retention.prunedThrough(s, epoch);
        Scan scan = incremental ? scanner.scan(s, epoch, p, cursor) : scanner.full(s, epoch, p, false);
        List<ConsumerView> consumerViews = new ArrayList<>();
        List<Blocker> blockers = new ArrayList<>();
        long pruneable = scan.ripeThrough();
        for (ConsumerRegistration c : consumers.forStream(s)) {
            long theirCursor = c.epoch() == epoch ? cursor
                    : retention.epochCursor(s, c.epoch()).map(EpochCursor::position).orElse(0L);
            consumerViews.add(new ConsumerView(c.consumerId(), c.epoch(), c.durablePosition(),
                    Math.max(0, theirCursor - c.durablePosition()), c.deliveryUrl(), c.registeredAt(),
                    c.progressAt(), c.registeredBy()));
            if (c.epoch() == epoch) {
                pruneable = Math.min(pruneable, c.durablePosition());
                if (c.durablePosition() < cursor) {
                    blockers.add(new Blocker(Blocker.Kind.CONSUMER, c.consumerId(), c.durablePosition(),
                            c.registeredBy()));
                }
            }
        }
        List<LeaseView> leaseViews = new ArrayList<>();
        for (LeaseRow l : leases.live(s, epoch)) {
            leaseViews.add(new LeaseView(l.leaseId(), l.owner(), l.pin(), l.createdAt(), l.expiresAt(),
                    l.createdBy()));
            pruneable = Math.min(pruneable, l.pin());
            if (l.pin() < cursor) {
                blockers.add(new Blocker(Blocker.Kind.LEASE, l.leaseId().toString(), l.pin(), l.createdBy()));
            }
        }
        if (scan.firstUnpublished() != null) {
            String eventId = outbox.eventId(s, epoch, scan.firstUnpublished()).map(Object::toString).orElse(null);
            blockers.add(new Blocker(Blocker.Kind.UNPUBLISHED, eventId, scan.firstUnpublished()));
        }
        Long missing = scan.firstMissing();
        if (missing == null && p + scan.retained() < cursor) {
            missing = p + scan.retained() + 1;
        }
        if (missing != null) {
            blockers.add(new Blocker(Blocker.Kind.GAP, null, missing));
        }
        blockers.sort(Blocker.ORDER);
        return new RetentionStatus(s, epoch, cursor, p, scan.retained(), List.copyOf(blockers),
                List.copyOf(consumerViews), List.copyOf(leaseViews), properties.minAge(), scan.ripeThrough(),
                Math.max(p, pruneable), clock.instant());
    }
}
