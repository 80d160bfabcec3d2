package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Retention's view of the outbox: what is retained above P, how far a prefix is prunable, and the bounded
 * delete. Never touches {@code stream_cursor}.
 */
@Repository
class RetainedOutboxRepository {

    /** The watermark: every position at or below it is published (one probe of the batch log's key). */
    private static final BoundSql<Scope> WATERMARK = BoundSql.<Scope>builder().sql("""
            coalesce((SELECT max(w.through) FROM outbox_publish w
                       WHERE w.tenant = ? AND w.catalog = ? AND w.epoch = ?), 0)""", Scope::tenant, Scope::catalog,
            Scope::epoch).build();
    /**
     * The ripe limit: every position at or below it was published at least min-age ago by the database clock. A
     * position was published by the first batch whose {@code through} reaches it, so the ripe prefix ends at the
     * newest batch below the first batch that is younger than min-age. (The relay inserts batches in order, so
     * that is the newest old-enough batch; the longer form never counts a row ripe from a later batch.)
     *
     * <p>The young batches are read through {@code outbox_publish_time} (V25), fenced by {@code OFFSET 0} so the
     * planner cannot walk the primary key from the oldest batch instead: the cost is bounded by the batches of the
     * last min-age, not by the backlog a blocked pruner leaves (measured on 432,000 batches of a day: 188 ms before,
     * 13 ms with the index). {@code statement_timestamp()} rather than {@code clock_timestamp()} so the cutoff is an
     * index bound; it is the earlier of the two, so no row counts ripe sooner.
     */
    static final BoundSql<Scope> RIPE_LIMIT = BoundSql.<Scope>builder().sql("""
            coalesce((SELECT max(w.through) FROM outbox_publish w
                       WHERE w.tenant = ? AND w.catalog = ? AND w.epoch = ?
                         AND w.through < coalesce((SELECT min(u.through)
                                                     FROM (SELECT through FROM outbox_publish
                                                            WHERE tenant = ? AND catalog = ? AND epoch = ?
                                                              AND published_at
                                                                  > statement_timestamp() - make_interval(secs => ?)
                                                           OFFSET 0) u),
                                                  9223372036854775807)), 0)""", Scope::tenant, Scope::catalog,
            Scope::epoch, Scope::tenant, Scope::catalog, Scope::epoch, Scope::minAgeSeconds).build();
    /*
     * One ordered pass over the rows above P (through an upper bound): expected is the position a gapless
     * prefix would have at that row, so the first row whose position differs marks a gap; "ripe" rows are
     * at or below the ripe limit (published at least min-age ago by the database clock). The prunable prefix ends
     * just before the first gap or unripe row.
     */
    private static final BoundSql<Range> SCAN = BoundSql.<Range>builder()
            .sql("""
                    SELECT count(*) AS retained,
                           min(expected) FILTER (WHERE position <> expected) AS first_missing,
                           min(position) FILTER (WHERE position > m.watermark) AS first_unpublished,
                           min(expected - 1) FILTER (WHERE position <> expected OR position > m.ripe) AS ripe_stop
                      FROM (SELECT\s""")
            .include(WATERMARK, Range::scope).sql(" AS watermark, ").include(RIPE_LIMIT, Range::scope)
            .sql("""
                     AS ripe) m,
                           LATERAL (SELECT position, ? + row_number() OVER (ORDER BY position) AS expected
                                      FROM outbox
                                     WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?) t
                    """, Range::after, r -> r.scope().tenant(), r -> r.scope().catalog(), r -> r.scope().epoch(),
                    Range::after, Range::through)
            .build();
    private static final String SQL_EVENT_ID = """
            SELECT event_id FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ?
            """;
    /** The first retained row above the watermark (and above {@code after}): one probe of the primary key. */
    private static final BoundSql<Range> FIRST_UNPUBLISHED = BoundSql.<Range>builder()
            .sql("""
                    SELECT min(position) FROM outbox
                     WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > GREATEST(?,\s""",
                    r -> r.scope().tenant(), r -> r.scope().catalog(), r -> r.scope().epoch(), Range::after)
            .include(WATERMARK, Range::scope).sql(")")
            .build();
    /**
     * The first row in (after, through] that is not ripe (same test as {@link #SCAN}): one probe of the
     * primary key above the ripe limit.
     */
    private static final BoundSql<Range> FIRST_UNRIPE = BoundSql.<Range>builder()
            .sql("""
                    SELECT position FROM outbox
                     WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > GREATEST(?,\s""",
                    r -> r.scope().tenant(), r -> r.scope().catalog(), r -> r.scope().epoch(), Range::after)
            .include(RIPE_LIMIT, Range::scope)
            .sql("""
                    ) AND position <= ?
                     ORDER BY position
                     LIMIT 1
                    """, Range::through)
            .build();
    private static final String SQL_DELETE_RANGE = """
            DELETE FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?
            """;
    /**
     * Prunes the batch log with the outbox: batches at or below the new P bound no retained row, except the
     * newest of all, which is the watermark.
     */
    private static final String SQL_DELETE_PUBLISHED = """
            DELETE FROM outbox_publish
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND through <= ?
               AND through < (SELECT max(through) FROM outbox_publish WHERE tenant = ? AND catalog = ? AND epoch = ?)
            """;

    /**
     * The bytes every stream's retained outbox rows take, all epochs: {@code pg_column_size} of each row as stored
     * (the JSON payload compressed as PostgreSQL keeps it; no page, index or TOAST-chunk overhead). One sequential
     * pass over the outbox for every stream at once.
     */
    private static final String SQL_RETAINED_BYTES = """
            SELECT o.tenant, o.catalog, sum(pg_column_size(o.*))::bigint AS bytes
              FROM outbox o
             GROUP BY o.tenant, o.catalog
            """;

    private final JdbcClient jdbc;

    RetainedOutboxRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Scans the outbox rows of (s, epoch) in (p, upTo]. */
    Scan scan(StreamId s, long epoch, long p, long upTo, Duration minAge) {
        return jdbc.sql(SCAN.sql()).params(SCAN.params(new Range(new Scope(s, epoch, minAge), p, upTo)))
                .query((rs, n) -> {
                    long retained = rs.getLong("retained");
                    long firstMissing = rs.getLong("first_missing");
                    boolean gapInside = !rs.wasNull();
                    long firstUnpublished = rs.getLong("first_unpublished");
                    boolean unpublished = !rs.wasNull();
                    long ripeStop = rs.getLong("ripe_stop");
                    boolean stopped = !rs.wasNull();
                    return new Scan(p, retained, gapInside ? firstMissing : null,
                            unpublished ? firstUnpublished : null, stopped ? ripeStop : p + retained);
                }).single();
    }

    Optional<UUID> eventId(StreamId s, long epoch, long position) {
        return jdbc.sql(SQL_EVENT_ID).params(s.tenant(), s.catalog(), epoch, position).query(UUID.class).optional();
    }

    /** The first row of (s, epoch) above {@code after} and above the published watermark, if any. */
    OptionalLong firstUnpublished(StreamId s, long epoch, long after) {
        Range r = new Range(new Scope(s, epoch, Duration.ZERO), after, after);
        return jdbc.sql(FIRST_UNPUBLISHED.sql()).params(FIRST_UNPUBLISHED.params(r)).query((rs, n) -> {
            long first = rs.getLong(1);
            return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(first);
        }).single();
    }

    /** The first row of (s, epoch) in (after, through] that is unpublished or published less than min-age ago. */
    OptionalLong firstUnripe(StreamId s, long epoch, long after, long through, Duration minAge) {
        Range r = new Range(new Scope(s, epoch, minAge), after, through);
        return jdbc.sql(FIRST_UNRIPE.sql()).params(FIRST_UNRIPE.params(r))
                .query(Long.class).optional().map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /**
     * Deletes the rows of (s, epoch) in (after, through], and the publish batches that bound only deleted rows;
     * call under the retention lock.
     */
    int deleteRange(StreamId s, long epoch, long after, long through) {
        int deleted = jdbc.sql(SQL_DELETE_RANGE).params(s.tenant(), s.catalog(), epoch, after, through).update();
        jdbc.sql(SQL_DELETE_PUBLISHED).params(s.tenant(), s.catalog(), epoch, through, s.tenant(), s.catalog(), epoch)
                .update();
        return deleted;
    }

    /** The bytes of each stream's retained outbox rows (streams without rows absent), in one statement. */
    Map<StreamId, Long> retainedBytes() {
        Map<StreamId, Long> out = new HashMap<>();
        jdbc.sql(SQL_RETAINED_BYTES).query((RowCallbackHandler) rs -> out.put(
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("bytes")));
        return out;
    }

    /**
     * What one scan saw above P.
     *
     * @param retained         rows scanned
     * @param firstMissing     the first absent position between two present rows, or null
     * @param firstUnpublished the first retained row above the published watermark, or null
     * @param ripeThrough      the end of the gapless prefix from P+1 that is published and older than min-age
     */
    record Scan(long prunedThrough, long retained, Long firstMissing, Long firstUnpublished, long ripeThrough) {
    }

    /** One stream epoch, and how old a publish batch must be to count ripe. */
    record Scope(StreamId stream, long epoch, Duration minAge) {

        String tenant() {
            return stream.tenant();
        }

        String catalog() {
            return stream.catalog();
        }

        /** Min-age as PostgreSQL's {@code make_interval(secs => …)} takes it. */
        double minAgeSeconds() {
            return minAge.toMillis() / 1000.0;
        }
    }

    /** The rows of a scope in (after, through]. */
    private record Range(Scope scope, long after, long through) {
    }
}
