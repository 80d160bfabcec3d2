package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.resolver.stream.Cursor;
import com.acme.catalog.resolver.stream.CursorRepository;

import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The retention-control lock and pruned-through P of each (stream, epoch), plus read-only views of the stream
 * cursor that retention decisions are bounded by.
 *
 * <p>Why a row lock on {@code stream_retention} and not a transaction-scoped advisory lock: the row that is
 * locked is the row that holds P, so whoever holds the lock reads P exactly as the last holder committed it
 * and updates it in place; the lock is keyed by the real (tenant, catalog, epoch) instead of a 64-bit hash in a
 * key space other capabilities might also use (a collision would silently serialize unrelated streams); it shows
 * up in {@code pg_locks}/{@code pg_stat_activity} as a wait on a named table; and a reader that must keep the
 * pruner out for a moment can take the same row {@code FOR SHARE}. It is a different row from
 * {@code stream_cursor}, so retention never waits for writers and writers never wait for retention. Callers
 * never take this lock while holding outbox row locks (the pruner deletes outbox rows while holding it).
 */
@Repository
class RetentionRepository {

    private static final String SQL_LOCK = """
            SELECT pruned_through FROM stream_retention
             WHERE tenant = ? AND catalog = ? AND epoch = ?
               FOR UPDATE
            """;
    private static final String SQL_CREATE = """
            INSERT INTO stream_retention (tenant, catalog, epoch) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """;
    private static final UnnestColumns<Map.Entry<StreamId, Long>> EPOCH_COLUMNS =
            UnnestColumns.<Map.Entry<StreamId, Long>>of(null)
                    .text("tenant", e -> e.getKey().tenant())
                    .text("catalog", e -> e.getKey().catalog())
                    .bigints("epoch", Map.Entry::getValue);
    private static final BoundSql<Map<StreamId, Long>> CREATE_ALL = BoundSql.<Map<StreamId, Long>>builder()
            .sql("INSERT INTO stream_retention (tenant, catalog, epoch)\nSELECT u.tenant, u.catalog, u.epoch FROM ")
            .unnest(Map::entrySet, EPOCH_COLUMNS).sql("\nON CONFLICT DO NOTHING").build();
    private static final BoundSql<Map<StreamId, Long>> LOCK_ALL = BoundSql.<Map<StreamId, Long>>builder()
            .sql("SELECT r.pruned_through FROM stream_retention r JOIN ").unnest(Map::entrySet, EPOCH_COLUMNS)
            .sql("""

                     ON r.tenant = u.tenant AND r.catalog = u.catalog AND r.epoch = u.epoch
                     ORDER BY r.tenant, r.catalog, r.epoch
                       FOR UPDATE OF r
                    """).build();
    private static final String SQL_PRUNED_THROUGH = """
            SELECT pruned_through FROM stream_retention WHERE tenant = ? AND catalog = ? AND epoch = ?
            """;
    private static final String SQL_ADVANCE_PRUNED = """
            UPDATE stream_retention SET pruned_through = ?, pruned_at = now()
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND pruned_through = ?
            """;
    private static final String SQL_EPOCH_CURSOR = """
            SELECT position, fenced_at IS NOT NULL AS fenced FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND epoch = ?
            """;
    private static final String SQL_ANY_CURSOR = """
            SELECT EXISTS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ?)
            """;
    private static final String SQL_ANY_RETENTION = """
            SELECT EXISTS (SELECT 1 FROM stream_retention WHERE tenant = ? AND catalog = ?)
            """;
    /**
     * The (stream, epoch) pairs a prune batch could advance now, in one statement over all of them: the row above
     * P is retained, no consumer's durable position and no live lease's pin is at or below P, and the batch that
     * published the row above P is older than min-age (batches are logged in order, so the first one above P is
     * the oldest that covers it). Each test is an index probe; a pair it passes may still prune nothing (a gap, a
     * consumer registering meanwhile: the batch re-reads every bound under the lock), but a pair it fails cannot
     * prune anything, so a quiet or fully pruned stream costs the cycle no statement of its own.
     * Parameter: min-age in seconds.
     */
    private static final String SQL_PRUNE_CANDIDATES = """
            SELECT c.tenant, c.catalog, c.epoch
              FROM stream_cursor c
              LEFT JOIN stream_retention r ON r.tenant = c.tenant AND r.catalog = c.catalog AND r.epoch = c.epoch
             CROSS JOIN LATERAL (SELECT coalesce(r.pruned_through, 0) AS p) x
             WHERE EXISTS (SELECT 1 FROM outbox o
                            WHERE o.tenant = c.tenant AND o.catalog = c.catalog AND o.epoch = c.epoch
                              AND o.position = x.p + 1)
               AND NOT EXISTS (SELECT 1 FROM retention_consumer k
                                WHERE k.tenant = c.tenant AND k.catalog = c.catalog AND k.epoch = c.epoch
                                  AND k.durable_position <= x.p)
               AND NOT EXISTS (SELECT 1 FROM retention_lease l
                                WHERE l.tenant = c.tenant AND l.catalog = c.catalog AND l.epoch = c.epoch
                                  AND l.released_at IS NULL AND l.expires_at > clock_timestamp() AND l.pin <= x.p)
               AND (SELECT w.published_at FROM outbox_publish w
                     WHERE w.tenant = c.tenant AND w.catalog = c.catalog AND w.epoch = c.epoch AND w.through > x.p
                     ORDER BY w.through LIMIT 1) <= statement_timestamp() - make_interval(secs => ?)
             ORDER BY c.tenant, c.catalog, c.epoch
            """;
    private static final String SQL_STREAM_EPOCHS = """
            SELECT tenant, catalog, epoch FROM stream_cursor
             WHERE (CAST(? AS text) IS NULL OR tenant = ?) AND (CAST(? AS text) IS NULL OR catalog = ?)
             ORDER BY tenant, catalog, epoch
            """;

    /**
     * Per open stream, one text that changes whenever anything its retention status shows can change: the cursor,
     * P, its consumers' registrations and progress, its live leases (an expiry drops one), the publish watermark and
     * a rollback mark. One statement for every stream, so the periodic status refresh re-reads only streams whose
     * text moved.
     */
    private static final String SQL_STATUS_FINGERPRINTS = """
            SELECT c.tenant, c.catalog,
                   concat_ws(':', c.epoch, c.position, coalesce(r.pruned_through, 0), c.rolled_back_at IS NOT NULL,
                     (SELECT concat_ws(':', count(*), sum(k.durable_position), sum(k.epoch),
                                       string_agg(k.consumer_id || '@' || coalesce(k.delivery_url, ''), ','
                                                  ORDER BY k.consumer_id))
                        FROM retention_consumer k WHERE k.tenant = c.tenant AND k.catalog = c.catalog),
                     (SELECT concat_ws(':', count(*), min(l.pin), min(l.expires_at))
                        FROM retention_lease l
                       WHERE l.tenant = c.tenant AND l.catalog = c.catalog AND l.epoch = c.epoch
                         AND l.released_at IS NULL AND l.expires_at > clock_timestamp()),
                     (SELECT max(p.through) FROM outbox_publish p
                       WHERE p.tenant = c.tenant AND p.catalog = c.catalog AND p.epoch = c.epoch)) AS fingerprint
              FROM stream_cursor c
              LEFT JOIN stream_retention r ON r.tenant = c.tenant AND r.catalog = c.catalog AND r.epoch = c.epoch
             WHERE c.fenced_at IS NULL
            """;

    private final JdbcClient jdbc;
    private final CursorRepository cursors;

    RetentionRepository(JdbcClient jdbc, CursorRepository cursors) {
        this.jdbc = jdbc;
        this.cursors = cursors;
    }

    /**
     * Takes the retention-control lock of (stream, epoch) until the surrounding transaction ends, creating its
     * row (P = 0) on first use; concurrent first users are safe because the second insert waits for the first
     * and then does nothing.
     *
     * @return pruned-through P as of the lock, stable until the transaction ends
     */
    long lock(StreamId s, long epoch) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the retention lock needs an open transaction");
        }
        Optional<Long> p = selectForUpdate(s, epoch);
        if (p.isPresent()) {
            return p.get();
        }
        jdbc.sql(SQL_CREATE).params(s.tenant(), s.catalog(), epoch).update();
        return selectForUpdate(s, epoch).orElseThrow();
    }

    /**
     * {@link #lock} for many (stream, epoch) pairs at once, each row created where missing, locked in (tenant,
     * catalog) order: one statement to create, one to lock.
     */
    void lockAll(Map<StreamId, Long> epochs) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the retention lock needs an open transaction");
        }
        jdbc.sql(CREATE_ALL.sql()).params(CREATE_ALL.params(epochs)).update();
        jdbc.sql(LOCK_ALL.sql()).params(LOCK_ALL.params(epochs)).query().listOfRows();
    }

    private Optional<Long> selectForUpdate(StreamId s, long epoch) {
        return jdbc.sql(SQL_LOCK).params(s.tenant(), s.catalog(), epoch).query(Long.class).optional();
    }

    /** Committed P of (stream, epoch); 0 when nothing was ever pruned. */
    long prunedThrough(StreamId s, long epoch) {
        return jdbc.sql(SQL_PRUNED_THROUGH).params(s.tenant(), s.catalog(), epoch).query(Long.class).optional()
                .orElse(0L);
    }

    /** Moves P from {@code from} to {@code to} under the held lock; compare-and-set, so P can never go back. */
    void advancePrunedThrough(StreamId s, long epoch, long from, long to) {
        if (to < from) {
            throw new IllegalStateException("pruned-through of " + s + " epoch " + epoch + " may not go back");
        }
        int rows = jdbc.sql(SQL_ADVANCE_PRUNED).params(to, s.tenant(), s.catalog(), epoch, from).update();
        if (rows != 1) {
            throw new IllegalStateException("pruned-through of " + s + " epoch " + epoch
                    + " moved under a held retention lock (expected " + from + ")");
        }
    }

    /**
     * The stream's open epoch and committed cursor. A stream that was never written reads as epoch 1 at
     * position 0, the epoch its first write opens.
     *
     * @throws ApiException {@code STREAM_FENCED} when the stream has cursors but none is open
     */
    StreamHead openHead(StreamId s) {
        Optional<Cursor> open = cursors.read(s);
        if (open.isPresent()) {
            return new StreamHead(s, open.get().epoch(), open.get().position(), true);
        }
        if (jdbc.sql(SQL_ANY_CURSOR).params(s.tenant(), s.catalog()).query(Boolean.class).single()) {
            throw new ApiException(ProblemCode.STREAM_FENCED, "stream " + s + " has no open history epoch");
        }
        return new StreamHead(s, 1, 0, false);
    }

    /** The committed cursor of one epoch, open or fenced; empty when that epoch has none. */
    Optional<EpochCursor> epochCursor(StreamId s, long epoch) {
        return jdbc.sql(SQL_EPOCH_CURSOR).params(s.tenant(), s.catalog(), epoch)
                .query((rs, n) -> new EpochCursor(rs.getLong(1), rs.getBoolean(2))).optional();
    }

    /** Whether retention ever locked the stream (a consumer or lease may exist before its first write). */
    boolean retentionKnown(StreamId s) {
        return jdbc.sql(SQL_ANY_RETENTION).params(s.tenant(), s.catalog()).query(Boolean.class).single();
    }

    /** @return every open stream's status fingerprint ({@link #SQL_STATUS_FINGERPRINTS}) */
    Map<StreamId, String> statusFingerprints() {
        Map<StreamId, String> out = new HashMap<>();
        jdbc.sql(SQL_STATUS_FINGERPRINTS).query((RowCallbackHandler) rs -> out.put(
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getString("fingerprint")));
        return out;
    }

    /** The (stream, epoch) pairs a prune batch could advance now ({@link #SQL_PRUNE_CANDIDATES}). */
    List<StreamEpoch> pruneCandidates(Duration minAge) {
        return jdbc.sql(SQL_PRUNE_CANDIDATES).params(minAge.toMillis() / 1000.0)
                .query((rs, n) -> new StreamEpoch(new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3)))
                .list();
    }

    /** Every (stream, epoch) with a cursor, optionally limited to a tenant and catalog. */
    List<StreamEpoch> streamEpochs(String tenant, String catalog) {
        return jdbc.sql(SQL_STREAM_EPOCHS).params(tenant, tenant, catalog, catalog)
                .query((rs, n) -> new StreamEpoch(new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3)))
                .list();
    }

    /** The open epoch of a stream and its committed position; {@code written} is false before the first write. */
    record StreamHead(StreamId stream, long epoch, long position, boolean written) {
    }

    /** One epoch's committed position and whether a newer epoch fenced it. */
    record EpochCursor(long position, boolean fenced) {
    }

    /** A (stream, epoch) pair: the unit retention works on. */
    record StreamEpoch(StreamId stream, long epoch) {
    }
}
