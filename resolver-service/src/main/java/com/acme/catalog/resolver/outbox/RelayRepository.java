package com.acme.catalog.resolver.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Delivery cursors, claims and the published watermark ({@code outbox_publish}). All expiry and backoff decisions use database time.
 *
 * <p>The relay's own bookkeeping (claims, delivery cursors, published marks) commits with
 * {@code synchronous_commit = off}: it is on the path between two deliveries, and losing its last commits to a
 * database crash only causes redeliveries (consumers dedupe by position) or a later published mark, never a lost
 * event. The events themselves and the consumers' durable progress are written by other code, synchronously.
 */
@Repository
class RelayRepository {

    /**
     * Push consumers of open, not rolled back stream epochs that no bootstrap import holds (its fence's session
     * holding the import lock) and that were not moved away, and how far each was delivered. The row's
     * {@code import_pid} is tested first: the fence function runs only for a row that names a fence.
     */
    private static final String DUE_FROM = """
            SELECT c.consumer_id, c.tenant, c.catalog, c.epoch, c.delivery_url,
                   GREATEST(coalesce(d.delivered_through, 0), c.durable_position) AS delivered, cur.position AS head
              FROM retention_consumer c
              JOIN stream_cursor cur ON cur.tenant = c.tenant AND cur.catalog = c.catalog AND cur.epoch = c.epoch
                                    AND cur.fenced_at IS NULL
              LEFT JOIN relay_delivery d ON d.consumer_id = c.consumer_id AND d.tenant = c.tenant
                                        AND d.catalog = c.catalog AND d.epoch = c.epoch
             WHERE c.delivery_url IS NOT NULL AND cur.rolled_back_at IS NULL
               AND (cur.import_pid IS NULL OR NOT import_fence_held(cur.import_pid, cur.tenant, cur.catalog))
               AND cur.move_state IS DISTINCT FROM 'MOVED'
            """;
    /** Only the named stream epochs. */
    private static final String DUE_NAMED = """
               AND (c.tenant, c.catalog, c.epoch) IN (SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[]))
            """;
    /** Behind their stream's head, backoff passed, held by nobody else, outside maintenance. */
    private static final BoundSql<DueQuery> DUE_WHERE = BoundSql.<DueQuery>builder()
            .sql("   AND NOT (").sql(MaintenanceSwitch.SQL_ENABLED).sql("""
                    )
                       AND cur.position > GREATEST(coalesce(d.delivered_through, 0), c.durable_position)
                       AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= clock_timestamp())
                       AND (d.claim_until IS NULL OR d.claim_until < clock_timestamp() OR d.claimed_by = ?)
                     ORDER BY c.tenant, c.catalog, c.consumer_id
                     LIMIT ?
                    """, DueQuery::instance, DueQuery::limit)
            .build();
    /** Every stream's due consumers: the safety net (poll, retries, lost notifications). */
    private static final BoundSql<DueQuery> DUE = BoundSql.<DueQuery>builder()
            .sql(DUE_FROM)
            .include(DUE_WHERE, q -> q)
            .build();
    /**
     * The due consumers of the named stream epochs only (those a commit notification named): a write costs a look at
     * its own stream, not at every stream.
     */
    private static final BoundSql<DueQuery> DUE_FOR = BoundSql.<DueQuery>builder()
            .sql(DUE_FROM)
            .sql(DUE_NAMED, q -> q.streams().stream().map(s -> s.stream().tenant()).toArray(String[]::new),
                    q -> q.streams().stream().map(s -> s.stream().catalog()).toArray(String[]::new),
                    q -> q.streams().stream().map(StreamEpoch::epoch).toArray(Long[]::new))
            .include(DUE_WHERE, q -> q)
            .build();
    /**
     * The fence of every read of events to deliver, checked in the statement that reads them (docs/epochs.md): the
     * (stream, epoch) cursor is open (a rotation fences it, whichever instance rotated), carries no rollback mark, no
     * held import fence (docs/bootstrap-import.md) and no completed move (docs/runbooks/move-stream.md), and the
     * resolver is not in maintenance.
     */
    private static final BoundSql<StreamEpoch> RELAYABLE = BoundSql.<StreamEpoch>builder()
            .sql("""
                    EXISTS (SELECT 1 FROM stream_cursor k WHERE k.tenant = ? AND k.catalog = ? AND k.epoch = ?
                                                            AND k.fenced_at IS NULL AND k.rolled_back_at IS NULL
                                                            AND (k.import_pid IS NULL
                                                                 OR NOT import_fence_held(k.import_pid, k.tenant,
                                                                                          k.catalog))
                                                            AND k.move_state IS DISTINCT FROM 'MOVED')
                       AND NOT (""", s -> s.stream().tenant(), s -> s.stream().catalog(), StreamEpoch::epoch)
            .sql(MaintenanceSwitch.SQL_ENABLED).sql(")")
            .build();
    /** Prefixed to each bookkeeping statement: one round trip, then the commit. */
    private static final String SQL_ASYNC_COMMIT = "SET LOCAL synchronous_commit = off;\n";
    /**
     * The claim and, when it was taken, the first batch after the delivery cursor, in one statement: always one row
     * with {@code taken}, then the event columns (null when there is none or the claim was not taken).
     */
    private static final BoundSql<ClaimAndRead> CLAIM_AND_READ = BoundSql.<ClaimAndRead>builder()
            .sql("""
                    WITH claim AS (
                        INSERT INTO relay_delivery (consumer_id, tenant, catalog, epoch, claimed_by, claim_until)
                        VALUES (?, ?, ?, ?, ?, clock_timestamp() + make_interval(secs => ?))
                        ON CONFLICT (consumer_id, tenant, catalog, epoch) DO UPDATE
                           SET claimed_by = excluded.claimed_by, claim_until = excluded.claim_until
                         WHERE relay_delivery.claim_until IS NULL OR relay_delivery.claim_until < clock_timestamp()
                            OR relay_delivery.claimed_by = excluded.claimed_by
                        RETURNING 1
                    ), claimed AS (
                        SELECT count(*) > 0 AS taken FROM claim
                    )
                    SELECT c.taken, o.position, o.wire, o.chain_digest, o.occurred_at
                      FROM claimed c
                      LEFT JOIN LATERAL (SELECT position, wire, chain_digest, occurred_at FROM outbox
                                          WHERE c.taken AND tenant = ? AND catalog = ? AND epoch = ? AND position > ?
                                            AND\s""", c -> c.due().consumerId(), c -> c.due().stream().tenant(),
                    c -> c.due().stream().catalog(), c -> c.due().epoch(), ClaimAndRead::instance,
                    ClaimAndRead::claimSeconds, c -> c.due().stream().tenant(), c -> c.due().stream().catalog(),
                    c -> c.due().epoch(), ClaimAndRead::after)
            .include(RELAYABLE, c -> new StreamEpoch(c.due().stream(), c.due().epoch()))
            .sql("""

                                          ORDER BY position LIMIT ?) o ON true
                     ORDER BY o.position
                    """, ClaimAndRead::limit)
            .build();
    /** The next batch after a position, read only while the stream epoch is relayable. */
    private static final BoundSql<Batch> EVENTS = BoundSql.<Batch>builder()
            .sql("""
                    SELECT position, wire, chain_digest, occurred_at FROM outbox
                     WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND\s""",
                    b -> b.stream().stream().tenant(), b -> b.stream().stream().catalog(), b -> b.stream().epoch(),
                    Batch::after)
            .include(RELAYABLE, Batch::stream)
            .sql("""

                     ORDER BY position LIMIT ?
                    """, Batch::limit)
            .build();
    /**
     * Advances the delivery cursor. The claim is kept (and extended) while the outbox holds more events after
     * {@code through}, so the holder goes straight on to the next batch; once caught up it is released.
     */
    private static final String SQL_DELIVERED = """
            UPDATE relay_delivery d
               SET delivered_through = GREATEST(d.delivered_through, ?), failures = 0, next_attempt_at = NULL,
                   last_error = NULL, last_delivered_at = clock_timestamp(),
                   claimed_by = CASE WHEN more.pending THEN d.claimed_by END,
                   claim_until = CASE WHEN more.pending THEN clock_timestamp() + make_interval(secs => ?) END
              FROM (SELECT EXISTS (SELECT 1 FROM outbox
                                    WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ?)) AS more(pending)
             WHERE d.consumer_id = ? AND d.tenant = ? AND d.catalog = ? AND d.epoch = ? AND d.claimed_by = ?
            RETURNING more.pending
            """;
    private static final String SQL_FAILED = """
            UPDATE relay_delivery
               SET failures = failures + 1, last_error = ?,
                   next_attempt_at = clock_timestamp() + make_interval(secs => ?),
                   claimed_by = NULL, claim_until = NULL
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ? AND claimed_by = ?
            RETURNING failures
            """;
    private static final String SQL_FAILURES = """
            SELECT coalesce((SELECT failures FROM relay_delivery
                              WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ?), 0)
            """;
    private static final String SQL_RELEASE = """
            UPDATE relay_delivery SET claimed_by = NULL, claim_until = NULL
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ? AND claimed_by = ?
            """;
    private static final String SQL_RELEASE_ALL = """
            UPDATE relay_delivery SET claimed_by = NULL, claim_until = NULL WHERE claimed_by = ?
            """;
    /**
     * Publishes the prefix every push consumer of the stream has been delivered (or has durably processed);
     * with no push consumer there is nobody to deliver to and everything committed is published. Published rows
     * are a prefix, so the mark is one {@code outbox_publish} row per batch (through, clock_timestamp()), inserted
     * only above the current watermark: the watermark never moves back, and no outbox row is updated. Answers the
     * watermark once this commits (the target, or the previous watermark when a push consumer registered behind it
     * holds the target lower) and how many positions this call published (positions above the watermark are
     * gapless and never pruned).
     */
    private static final String SQL_PUBLISH = """
            WITH target AS (
                SELECT coalesce(
                         (SELECT min(GREATEST(coalesce(d.delivered_through, 0), c.durable_position))
                            FROM retention_consumer c
                            LEFT JOIN relay_delivery d ON d.consumer_id = c.consumer_id AND d.tenant = c.tenant
                                                      AND d.catalog = c.catalog AND d.epoch = c.epoch
                           WHERE c.tenant = ? AND c.catalog = ? AND c.epoch = ? AND c.delivery_url IS NOT NULL),
                         (SELECT position FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ?),
                         0) AS through,
                       coalesce((SELECT max(through) FROM outbox_publish
                                  WHERE tenant = ? AND catalog = ? AND epoch = ?), 0) AS watermark
            ), marked AS (
                INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
                SELECT ?, ?, ?, t.through, clock_timestamp() FROM target t WHERE t.through > t.watermark
                ON CONFLICT (tenant, catalog, epoch, through) DO NOTHING
                RETURNING through
            )
            SELECT GREATEST(t.through, t.watermark),
                   coalesce((SELECT max(m.through) FROM marked m) - t.watermark, 0) AS marked
              FROM target t
            """;
    /** The watermark: every row at or below it is published. */
    private static final String SQL_PUBLISHED_THROUGH = """
            SELECT coalesce((SELECT max(through) FROM outbox_publish WHERE tenant = ? AND catalog = ? AND epoch = ?), 0)
            """;
    /** Every stream epoch and its head: the publisher compares them with what it knows is published. */
    private static final String SQL_HEADS = """
            SELECT tenant, catalog, epoch, position FROM stream_cursor
            """;

    private final JdbcClient jdbc;
    private final JdbcTemplate template;
    private final TransactionTemplate tx;

    RelayRepository(JdbcClient jdbc, JdbcTemplate template, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.template = template;
        this.tx = tx;
    }

    List<Due> due(String instance, int limit) {
        DueQuery q = new DueQuery(List.of(), instance, limit);
        return jdbc.sql(DUE.sql()).params(DUE.params(q)).query(RelayRepository::due).list();
    }

    /** {@link #due} of {@code streams} only. */
    List<Due> dueFor(Collection<StreamEpoch> streams, String instance, int limit) {
        DueQuery q = new DueQuery(List.copyOf(streams), instance, limit);
        return jdbc.sql(DUE_FOR.sql()).params(DUE_FOR.params(q)).query(RelayRepository::due).list();
    }

    /**
     * Claims the consumer's delivery and reads the first batch after {@code after} in one transaction.
     *
     * @return empty when another instance holds the claim; otherwise the events (possibly none)
     */
    Optional<List<Event>> claimAndRead(Due d, String instance, long claimSeconds, long after, int limit) {
        return asyncCommit(CLAIM_AND_READ.sql(), rs -> {
            List<Event> events = new ArrayList<>();
            boolean taken = false;
            while (rs.next()) {
                taken = rs.getBoolean(1);
                long position = rs.getLong(2);
                if (!rs.wasNull()) {
                    events.add(new Event(position, rs.getString(3), rs.getString(4), rs.getTimestamp(5).toInstant()));
                }
            }
            return taken ? Optional.of(events) : Optional.<List<Event>>empty();
        }, CLAIM_AND_READ.params(new ClaimAndRead(d, instance, claimSeconds, after, limit)));
    }

    /** The next batch after {@code after}; none once the epoch is fenced, rolled back or in maintenance. */
    List<Event> events(StreamId s, long epoch, long after, int limit) {
        return jdbc.sql(EVENTS.sql()).params(EVENTS.params(new Batch(new StreamEpoch(s, epoch), after, limit)))
                .query((rs, n) -> new Event(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getTimestamp(4).toInstant())).list();
    }

    /**
     * Records a delivery acknowledged through {@code through}.
     *
     * @return empty when this instance no longer held the claim; true when more events wait and the claim was
     *         extended; false when the consumer is caught up and the claim was released
     */
    Optional<Boolean> delivered(Due d, long through, String instance, long claimSeconds) {
        StreamId s = d.stream();
        return asyncCommit(SQL_DELIVERED, rs -> rs.next() ? Optional.of(rs.getBoolean(1)) : Optional.<Boolean>empty(),
                through, claimSeconds, s.tenant(), s.catalog(), d.epoch(), through, d.consumerId(), s.tenant(),
                s.catalog(), d.epoch(), instance);
    }

    /** Releases the claim without delivering (nothing to send). */
    void release(Due d, String instance) {
        asyncCommit(SQL_RELEASE + " RETURNING 1", rs -> null, d.consumerId(), d.stream().tenant(),
                d.stream().catalog(), d.epoch(), instance);
    }

    void failed(Due d, String error, double backoffSeconds, String instance) {
        jdbc.sql(SQL_FAILED).params(error, backoffSeconds, d.consumerId(), d.stream().tenant(), d.stream().catalog(),
                d.epoch(), instance).query(Integer.class).optional();
    }

    int failures(Due d) {
        return jdbc.sql(SQL_FAILURES).params(d.consumerId(), d.stream().tenant(), d.stream().catalog(), d.epoch())
                .query(Integer.class).single();
    }

    /** Gives up every claim this instance holds (at shutdown), so another instance need not wait for expiry. */
    int releaseAll(String instance) {
        return jdbc.sql(SQL_RELEASE_ALL).params(instance).update();
    }

    /**
     * Marks published what every push consumer of (s, epoch) has: one watermark row, whatever the batch size.
     *
     * @return the position through which every row is published, and how many rows this call published
     */
    Published publish(StreamId s, long epoch) {
        return asyncCommit(SQL_PUBLISH, rs -> {
            rs.next();
            return new Published(rs.getLong(1), rs.getInt(2));
        }, s.tenant(), s.catalog(), epoch, s.tenant(), s.catalog(), epoch, s.tenant(), s.catalog(), epoch,
                s.tenant(), s.catalog(), epoch);
    }

    /** The position below which (inclusive) every row of (s, epoch) is published: the watermark. */
    long publishedThrough(StreamId s, long epoch) {
        return jdbc.sql(SQL_PUBLISHED_THROUGH).params(s.tenant(), s.catalog(), epoch)
                .query(Long.class).single();
    }

    /** Every stream epoch with its head position. */
    List<Head> heads() {
        return jdbc.sql(SQL_HEADS).query((rs, n) -> new Head(new StreamEpoch(
                new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3)), rs.getLong(4))).list();
    }

    /**
     * Runs {@code sql} (one statement answering rows) in its own transaction that commits without waiting for the
     * disk: the {@code SET LOCAL} and the statement go in one round trip, the commit in a second.
     */
    private <T> T asyncCommit(String sql, ResultSetExtractor<T> answer, Object... params) {
        return tx.execute(status -> template.execute(SQL_ASYNC_COMMIT + sql, (PreparedStatementCallback<T>) ps -> {
            new ArgumentPreparedStatementSetter(params).setValues(ps);
            ps.execute();
            while (!ps.getMoreResults() && ps.getUpdateCount() != -1) {
                // the SET's update count: on to the statement's rows
            }
            try (ResultSet rs = ps.getResultSet()) {
                if (rs == null) {
                    throw new IllegalStateException("relay bookkeeping statement answered no rows: " + sql);
                }
                return answer.extractData(rs);
            }
        }));
    }

    private static Due due(ResultSet rs, int n) throws SQLException {
        return new Due(rs.getString("consumer_id"), new StreamId(rs.getString("tenant"), rs.getString("catalog")),
                rs.getLong("epoch"), rs.getString("delivery_url"), rs.getLong("delivered"), rs.getLong("head"));
    }

    /** A consumer with events to deliver. */
    record Due(String consumerId, StreamId stream, long epoch, String deliveryUrl, long delivered, long head) {
    }

    /** One outbox row as it goes on the wire, and when it was written. */
    record Event(long position, String wire, String chainDigest, Instant occurredAt) {
    }

    record StreamEpoch(StreamId stream, long epoch) {
    }

    /** The parameters of a due-consumers query: the stream epochs to look at (for {@link #DUE_FOR}), who asks. */
    private record DueQuery(List<StreamEpoch> streams, String instance, int limit) {
    }

    /** The parameters of {@link #CLAIM_AND_READ}. */
    private record ClaimAndRead(Due due, String instance, long claimSeconds, long after, int limit) {
    }

    /** The parameters of {@link #EVENTS}. */
    private record Batch(StreamEpoch stream, long after, int limit) {
    }

    /** A stream epoch and its cursor position. */
    record Head(StreamEpoch stream, long position) {
    }

    /** What one publish call did: every row at or below {@code through} is published; it published {@code marked}. */
    record Published(long through, int marked) {
    }
}
