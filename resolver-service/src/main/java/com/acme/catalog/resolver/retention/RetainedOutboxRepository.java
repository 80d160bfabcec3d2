package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.Optional;
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
