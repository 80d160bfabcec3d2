package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.retention.LeaseRequest;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.retention.LeaseRepository.LeaseRow;
import com.acme.catalog.resolver.retention.LeaseRepository.PinAndExpiry;
import com.acme.catalog.resolver.retention.RetentionRepository.EpochCursor;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamHead;
import com.acme.catalog.resolver.stream.PrunedThroughSource;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Rebuild leases and pruned-through, for exports, the catch-up endpoint and the REST API. Every lease decision
 * (alive or not, its expiry) is made by the database clock; a lease that has expired stays expired.
 */
@Service
public class RetentionService implements PrunedThroughSource {

    /** Longest accepted {@code owner} label. */
    static final int MAX_OWNER_LENGTH = LeaseRequest.MAX_OWNER_LENGTH;

    private final TransactionTemplate tx;
    private final RetentionRepository retention;
    private final LeaseRepository leases;
    private final RetentionProperties properties;

    RetentionService(TransactionTemplate tx, RetentionRepository retention, LeaseRepository leases,
            RetentionProperties properties) {
        this.tx = tx;
        this.retention = retention;
        this.leases = leases;
        this.properties = properties;
    }

    /**
     * Creates a lease pinned at the current pruned-through P of (stream, epoch), under the retention lock, and
     * commits it before returning, so a snapshot opened afterwards can rely on every event above the pin.
     * Must be called outside any transaction.
     *
     * @return the committed lease; never null
     * @throws ApiException {@code EPOCH_MISMATCH} when {@code epoch} is not the stream's open epoch,
     *                      {@code INVALID_BODY} for a ttl outside 1 s..{@code retention.lease.max-ttl} or a bad owner
     */
    public Lease pinRetention(StreamId stream, long epoch, Duration ttl, String owner) {
        return pinRetention(stream, epoch, ttl, owner, "resolver");
    }

    Lease pinRetention(StreamId stream, long epoch, Duration ttl, String owner, String createdBy) {
        requireOwnTransaction("pinRetention");
        requireTtl(ttl);
        requireOwner(owner);
        return tx.execute(status -> {
            StreamHead head = retention.openHead(stream);
            if (head.epoch() != epoch) {
                throw new ApiException(ProblemCode.EPOCH_MISMATCH,
                        "stream %s is in epoch %d, not %d".formatted(stream, head.epoch(), epoch));
            }
            long p = retention.lock(stream, epoch);
            UUID leaseId = UuidV7.next();
            Instant expiresAt = leases.insert(leaseId, stream, epoch, p, owner, createdBy, ttl);
            return new Lease(leaseId, stream, epoch, p, owner, expiresAt);
        });
    }

    /**
     * Extends a live lease to {@code ttl} from now (database time), under the retention lock so a prune that
     * already treated it as expired cannot be followed by a revival.
     *
     * @return the new expiry, database time
     * @throws LeaseExpiredException when it is expired or released
     */
    public Instant renew(UUID leaseId, Duration ttl) {
        requireTtl(ttl);
        LeaseRow row = find(leaseId);
        return tx.execute(status -> {
            retention.lock(row.stream(), row.epoch());
            return leases.renew(leaseId, ttl).orElseThrow(() -> expired(find(leaseId)));
        });
    }

    /** Releases a lease; releasing it again (or after expiry) changes nothing. */
    public void release(UUID leaseId) {
        find(leaseId);
        leases.release(leaseId);
    }

    /**
     * Moves a live lease's pin up to {@code toPosition} under the retention lock, e.g. from P to the cursor W an
     * export read in its snapshot. A lower position leaves the pin unchanged. Commits before returning; must be
     * called outside any transaction.
     *
     * @return the lease with its pin after the move
     * @throws LeaseExpiredException when it is expired or released
     * @throws ApiException {@code CURSOR_STALE} below P, {@code POSITION_AHEAD} above the epoch's cursor,
     *                      {@code EPOCH_CHANGED} when the lease's epoch has been fenced
     */
    public Lease advancePin(UUID leaseId, long toPosition) {
        requireOwnTransaction("advancePin");
        if (toPosition < 0) {
            throw new ApiException(ProblemCode.INVALID_BODY, "position must be >= 0");
        }
        LeaseRow before = find(leaseId);
        return tx.execute(status -> {
            long p = retention.lock(before.stream(), before.epoch());
            LeaseRow row = find(leaseId);
            if (!row.alive()) {
                throw expired(row);
            }
            EpochCursor cursor = retention.epochCursor(row.stream(), row.epoch()).orElse(new EpochCursor(0, false));
            if (cursor.fenced()) {
                throw new ApiException(ProblemCode.EPOCH_CHANGED, "epoch %d of %s was fenced; lease %s belongs to it"
                        .formatted(row.epoch(), row.stream(), leaseId));
            }
            if (toPosition > cursor.position()) {
                throw new ApiException(ProblemCode.POSITION_AHEAD, "position %d is ahead of the cursor %d of %s "
                        .formatted(toPosition, cursor.position(), row.stream()) + "epoch " + row.epoch());
            }
            if (toPosition < p) {
                throw new ApiException(ProblemCode.CURSOR_STALE, "position %d is below pruned-through %d of %s"
                        .formatted(toPosition, p, row.stream()));
            }
            PinAndExpiry moved = leases.advancePin(leaseId, toPosition).orElseThrow(() -> expired(find(leaseId)));
            return new Lease(leaseId, row.stream(), row.epoch(), moved.pin(), row.owner(), moved.expiresAt());
        });
    }

    /**
     * Re-checks a lease before it is used. Alive means: not released and its expiry is after the database's
     * current time. Callers that read retained events check again after reading (fail closed): a lease alive at
     * the second check was alive throughout, so nothing above its pin was pruned meanwhile.
     *
     * @return the live lease with its stream, epoch and pin; never null
     * @throws LeaseExpiredException when it is expired or released
     * @throws ApiException {@code NOT_FOUND} for an unknown lease id
     */
    public Lease requireLiveLease(UUID leaseId) {
        LeaseRow row = find(leaseId);
        if (!row.alive()) {
            throw expired(row);
        }
        return row.toLease();
    }

    /**
     * A lease is used (export, catch-up pages, renew, release) only by the token identity that took it, or an
     * operator. An unknown lease passes: the use itself answers for it (404, or 410 for catch-up).
     *
     * @throws ApiException {@code FORBIDDEN} for a lease another token took, or of a tenant the caller may not access
     */
    public void requireLeaseUser(UUID leaseId, Caller caller) {
        leases.find(leaseId).ifPresent(row -> requireLeaseUser(row, caller));
    }

    static void requireLeaseUser(LeaseRow lease, Caller caller) {
        if (!caller.mayAccess(lease.stream().tenant())) {
            throw new ApiException(ProblemCode.FORBIDDEN, "token is not allowed for tenant " + lease.stream().tenant());
        }
        if (!caller.has(Role.OPERATOR) && !caller.name().equals(lease.createdBy())) {
            throw new ApiException(ProblemCode.FORBIDDEN, "lease " + lease.leaseId() + " was taken by another token");
        }
    }

    /** @return pruned-through P of (stream, epoch): every outbox row at or below it may be gone; 0 if none */
    @Override
    public long prunedThrough(StreamId stream, long epoch) {
        return retention.prunedThrough(stream, epoch);
    }

    LeaseRow find(UUID leaseId) {
        return leases.find(leaseId)
                .orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND, "lease " + leaseId + " does not exist"));
    }

    private static LeaseExpiredException expired(LeaseRow row) {
        String message = row.releasedAt() != null
                ? "lease %s was released at %s".formatted(row.leaseId(), row.releasedAt())
                : "lease %s expired at %s".formatted(row.leaseId(), row.expiresAt());
        return new LeaseExpiredException(row.leaseId(), message);
    }

    private void requireTtl(Duration ttl) {
        Duration max = properties.lease().maxTtl();
        if (ttl == null || ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(max) > 0) {
            throw new ApiException(ProblemCode.INVALID_BODY,
                    "ttlSeconds must be between 1 and " + max.toSeconds() + " (retention.lease.max-ttl)");
        }
    }

    static void requireOwner(String owner) {
        LeaseRequest.requireOwner(owner);
    }

    private static void requireOwnTransaction(String what) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException(what + " commits its own transaction; call it outside any transaction "
                    + "(and before opening a snapshot that relies on it)");
        }
    }
}
