package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Retention's view of the outbox: what is retained above P, how far a prefix is prunable, and the bounded
 * delete. Never touches {@code stream_cursor}.
 */
@Repository
class RetainedOutboxRepository {

    /*
     * One ordered pass over the rows above P (through an upper bound): expected is the position a gapless
     * prefix would have at that row, so the first row whose position differs marks a gap; "ripe" rows are
     * published at least min-age ago by the database clock. The prunable prefix ends just before the first gap
     * or unripe row.
     */
    private static final String SQL_SCAN = """
            SELECT count(*) AS retained,
                   min(expected) FILTER (WHERE position <> expected) AS first_missing,
                   min(position) FILTER (WHERE published_at IS NULL) AS first_unpublished,
                   min(expected - 1) FILTER (WHERE position <> expected OR NOT ripe) AS ripe_stop
              FROM (SELECT position, published_at,
                           ? + row_number() OVER (ORDER BY position) AS expected,
                           (published_at IS NOT NULL
                            AND published_at <= clock_timestamp() - make_interval(secs => ?)) AS ripe
                      FROM outbox
                     WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?) t
            """;
    private static final String SQL_EVENT_ID = """
            SELECT event_id FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ?
            """;
    /** The partial index {@code outbox_unpublished} answers this with one probe. */
    private static final String SQL_FIRST_UNPUBLISHED = """
            SELECT min(position) FROM outbox
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND published_at IS NULL
            """;
    /**
     * Walks the primary key upward from {@code after} and stops at the first row that is not ripe (same test as
     * {@link #SQL_SCAN}), so it reads the rows that ripened since the last look plus one.
     */
    private static final String SQL_FIRST_UNRIPE = """
            SELECT position FROM outbox
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?
               AND (published_at IS NULL OR published_at > clock_timestamp() - make_interval(secs => ?))
             ORDER BY position
             LIMIT 1
            """;
    private static final String SQL_DELETE_RANGE = """
            DELETE FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?
            """;

    private final JdbcClient jdbc;

    RetainedOutboxRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Scans the outbox rows of (s, epoch) in (p, upTo]. */
    Scan scan(StreamId s, long epoch, long p, long upTo, Duration minAge) {
        return jdbc.sql(SQL_SCAN)
                .params(p, minAge.toMillis() / 1000.0, s.tenant(), s.catalog(), epoch, p, upTo)
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

    /** The first row of (s, epoch) above {@code after} without {@code published_at}, if any. */
    OptionalLong firstUnpublished(StreamId s, long epoch, long after) {
        return jdbc.sql(SQL_FIRST_UNPUBLISHED).params(s.tenant(), s.catalog(), epoch, after).query((rs, n) -> {
            long first = rs.getLong(1);
            return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(first);
        }).single();
    }

    /** The first row of (s, epoch) in (after, through] that is unpublished or published less than min-age ago. */
    OptionalLong firstUnripe(StreamId s, long epoch, long after, long through, Duration minAge) {
        return jdbc.sql(SQL_FIRST_UNRIPE)
                .params(s.tenant(), s.catalog(), epoch, after, through, minAge.toMillis() / 1000.0)
                .query(Long.class).optional().map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /** Deletes the rows of (s, epoch) in (after, through]; call under the retention lock. */
    int deleteRange(StreamId s, long epoch, long after, long through) {
        return jdbc.sql(SQL_DELETE_RANGE).params(s.tenant(), s.catalog(), epoch, after, through).update();
    }

    /**
     * What one scan saw above P.
     *
     * @param retained         rows scanned
     * @param firstMissing     the first absent position between two present rows, or null
     * @param firstUnpublished the first row without {@code published_at}, or null
     * @param ripeThrough      the end of the gapless prefix from P+1 that is published and older than min-age
     */
    record Scan(long prunedThrough, long retained, Long firstMissing, Long firstUnpublished, long ripeThrough) {
    }
}
