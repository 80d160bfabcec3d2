package com.acme.catalog.resolver.retention;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Rebuild lease rows. Every expiry decision is made by the database clock in the statement that relies on it.
 * {@code clock_timestamp()} rather than {@code now()}: {@code now()} is frozen at transaction start, which may be
 * long before the retention lock was granted; a renewal that waited for the lock behind a pruner must judge the
 * lease at the moment it holds the lock, later than the pruner did, or it could revive a lease the pruner already
 * treated as expired.
 */
@Repository
class LeaseRepository {

    private static final String SQL_INSERT = """
            INSERT INTO retention_lease (lease_id, tenant, catalog, epoch, pin, owner, created_by, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, clock_timestamp() + make_interval(secs => ?))
            RETURNING expires_at
            """;
    // the two reads answer the columns row() reads
    private static final String SQL_FIND = """
            SELECT lease_id, tenant, catalog, epoch, pin, owner, created_by, created_at, expires_at, released_at,
                   (released_at IS NULL AND expires_at > clock_timestamp()) AS alive
              FROM retention_lease WHERE lease_id = ?
            """;
    private static final String SQL_RENEW = """
            UPDATE retention_lease
               SET expires_at = clock_timestamp() + make_interval(secs => ?), renewed_at = clock_timestamp()
             WHERE lease_id = ? AND released_at IS NULL AND expires_at > clock_timestamp()
            RETURNING expires_at
            """;
    private static final String SQL_RELEASE = """
            UPDATE retention_lease SET released_at = clock_timestamp()
             WHERE lease_id = ? AND released_at IS NULL
            """;
    private static final String SQL_ADVANCE_PIN = """
            UPDATE retention_lease SET pin = GREATEST(pin, ?)
             WHERE lease_id = ? AND released_at IS NULL AND expires_at > clock_timestamp()
            RETURNING pin, expires_at
            """;
    private static final String SQL_MIN_LIVE_PIN = """
            SELECT min(pin) FROM retention_lease
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND released_at IS NULL AND expires_at > clock_timestamp()
            """;
    private static final String SQL_LIVE = """
            SELECT lease_id, tenant, catalog, epoch, pin, owner, created_by, created_at, expires_at, released_at,
                   (released_at IS NULL AND expires_at > clock_timestamp()) AS alive
              FROM retention_lease
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND released_at IS NULL AND expires_at > clock_timestamp()
             ORDER BY pin, lease_id
            """;
    private static final String SQL_CLAIM_EXPIRED = """
            UPDATE retention_lease SET expiry_recorded_at = clock_timestamp()
             WHERE released_at IS NULL AND expiry_recorded_at IS NULL AND expires_at <= clock_timestamp()
            RETURNING tenant, catalog
            """;
    private static final String SQL_DELETE_ENDED = """
            DELETE FROM retention_lease
             WHERE coalesce(released_at, expires_at) < clock_timestamp() - make_interval(secs => ?)
            """;

    private final JdbcClient jdbc;

    LeaseRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return the new lease's expiry, database time */
    Instant insert(UUID leaseId, StreamId s, long epoch, long pin, String owner, String createdBy, Duration ttl) {
        return jdbc.sql(SQL_INSERT)
                .params(leaseId, s.tenant(), s.catalog(), epoch, pin, owner, createdBy, seconds(ttl))
                .query(Timestamp.class).single().toInstant();
    }

    Optional<LeaseRow> find(UUID leaseId) {
        return jdbc.sql(SQL_FIND).params(leaseId).query(LeaseRepository::row).optional();
    }

    /** @return the new expiry; empty when the lease is released or already expired (it cannot be revived) */
    Optional<Instant> renew(UUID leaseId, Duration ttl) {
        return jdbc.sql(SQL_RENEW).params(seconds(ttl), leaseId).query(Timestamp.class).optional()
                .map(Timestamp::toInstant);
    }

    /** @return whether this call released it (false: unknown or released before) */
    boolean release(UUID leaseId) {
        return jdbc.sql(SQL_RELEASE).params(leaseId).update() == 1;
    }

    /** Raises the pin of a live lease; never lowers it. Empty when the lease is no longer alive. */
    Optional<PinAndExpiry> advancePin(UUID leaseId, long toPosition) {
        return jdbc.sql(SQL_ADVANCE_PIN).params(toPosition, leaseId)
                .query((rs, n) -> new PinAndExpiry(rs.getLong(1), rs.getTimestamp(2).toInstant())).optional();
    }

    OptionalLong minLivePin(StreamId s, long epoch) {
        return jdbc.sql(SQL_MIN_LIVE_PIN).params(s.tenant(), s.catalog(), epoch).query(ConsumerRepository::nullable)
                .single();
    }

    List<LeaseRow> live(StreamId s, long epoch) {
        return jdbc.sql(SQL_LIVE).params(s.tenant(), s.catalog(), epoch).query(LeaseRepository::row).list();
    }

    /** Marks leases that expired unreleased as counted; each is returned by exactly one call, on any instance. */
    List<StreamId> claimNewlyExpired() {
        return jdbc.sql(SQL_CLAIM_EXPIRED).query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list();
    }

    int deleteEndedBefore(Duration age) {
        return jdbc.sql(SQL_DELETE_ENDED).params(seconds(age)).update();
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    private static LeaseRow row(ResultSet rs, int n) throws SQLException {
        Timestamp released = rs.getTimestamp("released_at");
        return new LeaseRow(rs.getObject("lease_id", UUID.class),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"),
                rs.getLong("pin"), rs.getString("owner"), rs.getString("created_by"),
                rs.getTimestamp("created_at").toInstant(), rs.getTimestamp("expires_at").toInstant(),
                released == null ? null : released.toInstant(), rs.getBoolean("alive"));
    }

    /** A lease row; {@code alive} was judged by the database clock when it was read. */
    record LeaseRow(UUID leaseId, StreamId stream, long epoch, long pin, String owner, String createdBy,
            Instant createdAt, Instant expiresAt, Instant releasedAt, boolean alive) {

        Lease toLease() {
            return new Lease(leaseId, stream, epoch, pin, owner, expiresAt);
        }
    }

    record PinAndExpiry(long pin, Instant expiresAt) {
    }
}
