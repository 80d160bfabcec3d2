package com.acme.catalog.product.inbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.ResultColumns;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.IntegrationEvent;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A generation's inbox (processed positions and their outcome) and its held events (PENDING: waiting for the
 * chain predecessor; PARKED: verified, waiting for a dependency). Callers hold the generation's cursor lock.
 *
 * <p>The statements of many rows, or that use a value twice, are assembled by {@link BoundSql} (named parameters,
 * rows as {@link UnnestColumns}); rows are read by column name.
 */
@Repository
class InboxRepository {

    /**
     * A run's inbox rows and the cursor they advance, in one statement (one round trip less per delivery): the
     * data-modifying CTE runs whether or not the UPDATE reads it. The UPDATE is {@code GenerationRepository}'s
     * cursor save; its row count tells whether the locked generation still exists.
     */
    private static final BoundSql<Recording> RECORD_AND_SAVE_CURSOR = BoundSql.<Recording>builder()
            .param("generation", r -> r.after().generationId())
            .param("chain_position", r -> r.after().chainPosition())
            .param("chain_digest", r -> r.after().chainDigest())
            .param("applied_position", r -> r.after().appliedPosition())
            .param("highest_seen_position", r -> r.after().highestSeenPosition())
            .sql("""
                    WITH recorded AS (
                        INSERT INTO inbox (generation_id, position, event_id, event_type, outcome, chain_digest)
                        SELECT :generation, r.position, r.event_id, r.event_type, r.outcome, r.chain_digest
                          FROM\s""")
            .unnest(Recording::processed, UnnestColumns.of(Processed.class, "r")
                    .bigints("position", p -> p.event().position())
                    .uuids("event_id", p -> p.event().eventId())
                    .text("event_type", p -> p.event().type())
                    .text("outcome", p -> p.outcome().name())
                    .text("chain_digest", p -> p.event().chainDigest()))
            .sql("""

                    )
                    UPDATE generation
                       SET chain_position = :chain_position, chain_digest = :chain_digest,
                           applied_position = :applied_position, highest_seen_position = :highest_seen_position,
                           updated_at = now()
                     WHERE generation_id = :generation
                    """)
            .build();
    private static final String SQL_HOLD = """
            INSERT INTO held_event (generation_id, position, state, wire, chain_digest, event_id, event_type,
                                    wait_type, wait_id, wait_revision)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;
    private static final BoundSql<Events> HOLD_PENDING_ALL = BoundSql.<Events>builder()
            .param("generation", Events::generation)
            .sql("""
                    INSERT INTO held_event (generation_id, position, state, wire, chain_digest, event_id, event_type)
                    SELECT :generation, h.position, 'PENDING', h.wire, h.chain_digest, h.event_id, h.event_type
                      FROM\s""")
            .unnest(Events::events, UnnestColumns.of(IntegrationEvent.class, "h")
                    .bigints("position", IntegrationEvent::position)
                    .text("wire", IntegrationEvent::wire)
                    .text("chain_digest", IntegrationEvent::chainDigest)
                    .uuids("event_id", IntegrationEvent::eventId)
                    .text("event_type", IntegrationEvent::type))
            .build();
    private static final String SQL_PARKED_WAITS = """
            SELECT DISTINCT wait_type, wait_id FROM held_event WHERE generation_id = ? AND state = 'PARKED'
            """;
    private static final ResultColumns WAIT_ROWS = ResultColumns.of("wait_type", "wait_id");
    private static final String SQL_PENDING_FROM = """
            SELECT position, wire, chain_digest FROM held_event
             WHERE generation_id = ? AND state = 'PENDING' AND position >= ? ORDER BY position LIMIT ?
            """;
    private static final BoundSql<Positions> PENDING_DIGESTS = BoundSql.<Positions>builder()
            .param("generation", Positions::generation)
            .param("positions", Positions::positions)
            .sql("""
                    SELECT position, chain_digest FROM held_event
                     WHERE generation_id = :generation AND state = 'PENDING' AND position = ANY(:positions)
                    """)
            .build();
    private static final ResultColumns DIGEST_ROWS = ResultColumns.of("position", "chain_digest");
    private static final String SQL_PARK = """
            UPDATE held_event SET state = 'PARKED', wait_type = ?, wait_id = ?, wait_revision = ?
             WHERE generation_id = ? AND position = ?
            """;
    private static final String SQL_RELEASE_ALL = """
            DELETE FROM held_event WHERE generation_id = ? AND position = ANY(?)
            """;
    private static final String SQL_WAITING_ON = """
            SELECT position, wire, chain_digest FROM held_event
             WHERE generation_id = ? AND state = 'PARKED' AND wait_type = ? AND wait_id = ? AND wait_revision <= ?
             ORDER BY position
            """;
    private static final String SQL_HELD_SUMMARY = """
            SELECT count(*) FILTER (WHERE state = 'PARKED') AS parked,
                   coalesce(min(position) FILTER (WHERE state = 'PARKED'), 0) AS first_parked,
                   count(*) AS total
              FROM held_event WHERE generation_id = ?
            """;
    private static final String SQL_COUNT_HELD = """
            SELECT count(*) FROM held_event WHERE generation_id = ?
            """;
    private static final BoundSql<Positions> KNOWN_DIGESTS = BoundSql.<Positions>builder()
            .param("generation", Positions::generation)
            .param("positions", Positions::positions)
            .sql("""
                    SELECT position, chain_digest FROM inbox
                     WHERE generation_id = :generation AND position = ANY(:positions)
                    UNION ALL
                    SELECT position, chain_digest FROM held_event
                     WHERE generation_id = :generation AND state = 'PARKED' AND position = ANY(:positions)
                    """)
            .build();
    private static final String SQL_START = """
            SELECT start_position, start_digest FROM generation WHERE generation_id = ? AND start_digest IS NOT NULL
            """;
    private static final ResultColumns START_ROWS = ResultColumns.of("start_position", "start_digest");
    private static final String SQL_DISCARD_PENDING = """
            DELETE FROM held_event WHERE generation_id = ? AND position = ? AND state = 'PENDING' AND chain_digest = ?
            """;

    private final JdbcClient jdbc;

    InboxRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Records processed events (one row per position) and saves the generation's advanced cursor, in one statement.
     *
     * @throws IllegalStateException when the generation's row is gone (the caller holds its lock, so it cannot be)
     */
    void recordAndSaveCursor(GenerationCursor after, List<Processed> processed) {
        int rows = jdbc.sql(RECORD_AND_SAVE_CURSOR.sql())
                .params(RECORD_AND_SAVE_CURSOR.params(new Recording(after, processed))).update();
        if (rows != 1) {
            throw new IllegalStateException("generation " + after.generationId() + " vanished while locked");
        }
    }

    /** Holds events PENDING (their chain predecessor has not arrived), in one statement. */
    void holdPending(long generation, Collection<IntegrationEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        jdbc.sql(HOLD_PENDING_ALL.sql()).params(HOLD_PENDING_ALL.params(new Events(generation, events))).update();
    }

    void holdParked(long generation, IntegrationEvent e, AggregateRevision waitFor) {
        hold(generation, e, "PARKED", waitFor);
    }

    private void hold(long generation, IntegrationEvent e, String state, AggregateRevision w) {
        jdbc.sql(SQL_HOLD).params(generation, e.position(), state, e.wire(), e.chainDigest(), e.eventId(), e.type(),
                w == null ? null : w.aggregateType(), w == null ? null : w.aggregateId(),
                w == null ? null : w.revision()).update();
    }

    /** Up to {@code limit} PENDING events at or after {@code from}, by position. */
    List<HeldRow> pendingFrom(long generation, long from, int limit) {
        return jdbc.sql(SQL_PENDING_FROM).params(generation, from, limit).query(HeldRow.class).list();
    }

    /** The digests of the PENDING events at these positions. */
    Map<Long, String> pendingDigests(long generation, Long[] positions) {
        return jdbc.sql(PENDING_DIGESTS.sql()).params(PENDING_DIGESTS.params(new Positions(generation, positions)))
                .query(InboxRepository::digests);
    }

    /** Turns a held event PARKED, or moves a parked one on to its next missing dependency. */
    void park(long generation, long position, AggregateRevision w) {
        jdbc.sql(SQL_PARK).params(w.aggregateType(), w.aggregateId(), w.revision(), generation, position).update();
    }

    void releaseAll(long generation, List<Long> positions) {
        if (!positions.isEmpty()) {
            jdbc.sql(SQL_RELEASE_ALL).params(generation, positions.toArray(Long[]::new)).update();
        }
    }

    /** Parked events waiting for {@code aggregate} at a revision it now has, by position. */
    List<HeldRow> waitingOn(long generation, AggregateRevision applied) {
        return jdbc.sql(SQL_WAITING_ON).params(generation, applied.aggregateType(), applied.aggregateId(),
                applied.revision()).query(HeldRow.class).list();
    }

    /** The aggregates some PARKED event of the generation waits for. */
    Set<Waited> parkedWaits(long generation) {
        return jdbc.sql(SQL_PARKED_WAITS).params(generation).query(rs -> {
            Set<Waited> out = new HashSet<>();
            ResultColumns.Rows row = WAIT_ROWS.in(rs);
            while (row.next()) {
                out.add(new Waited(row.getString("wait_type"), row.getString("wait_id")));
            }
            return out;
        });
    }

    HeldSummary heldSummary(long generation) {
        return jdbc.sql(SQL_HELD_SUMMARY).params(generation).query(HeldSummary.class).single();
    }

    long countHeld(long generation) {
        return jdbc.sql(SQL_COUNT_HELD).params(generation).query(Long.class).single();
    }

    /** The verified chain digests recorded for these positions (processed or parked). */
    Map<Long, String> knownDigests(long generation, Long[] positions) {
        return jdbc.sql(KNOWN_DIGESTS.sql()).params(KNOWN_DIGESTS.params(new Positions(generation, positions)))
                .query(InboxRepository::digests);
    }

    /** Position to chain digest, of rows of {@code position} and {@code chain_digest}. */
    private static Map<Long, String> digests(ResultSet rs) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        ResultColumns.Rows row = DIGEST_ROWS.in(rs);
        while (row.next()) {
            out.put(row.getLong("position"), row.getString("chain_digest"));
        }
        return out;
    }

    /** The position the generation started at and the chain digest there; empty when that digest is unknown. */
    Optional<StartPoint> start(long generation) {
        return jdbc.sql(SQL_START).params(generation).query(rs -> {
            ResultColumns.Rows row = START_ROWS.in(rs);
            return row.next()
                    ? Optional.of(new StartPoint(row.getLong("start_position"), row.getString("start_digest")))
                    : Optional.<StartPoint>empty();
        });
    }

    /** Where a generation's chain starts: the export's W and its digest (0 and 64 zeros for an empty start). */
    record StartPoint(long position, String digest) {
    }

    /** Drops a PENDING event proven not to chain; @return whether it was still there */
    boolean discardPending(long generation, long position, String chainDigest) {
        return jdbc.sql(SQL_DISCARD_PENDING).params(generation, position, chainDigest).update() == 1;
    }

    /** The parameters of {@link #RECORD_AND_SAVE_CURSOR}. */
    private record Recording(GenerationCursor after, List<Processed> processed) {
    }

    /** The parameters of {@link #HOLD_PENDING_ALL}. */
    private record Events(long generation, Collection<IntegrationEvent> events) {
    }

    /** The parameters of a look-up of some positions of a generation. */
    private record Positions(long generation, Long[] positions) {
    }

    /** An event and the terminal outcome it was processed with. */
    record Processed(IntegrationEvent event, Outcome outcome) {
    }

    /** How many events are PARKED, the lowest parked position (0 when none), and all held events. */
    record HeldSummary(long parked, long firstParked, long total) {
    }

    /** An aggregate (any revision) a parked event waits for. */
    record Waited(String aggregateType, String aggregateId) {
        static Waited of(AggregateRevision r) {
            return new Waited(r.aggregateType(), r.aggregateId());
        }
    }

    /** A held event as stored. */
    record HeldRow(long position, String wire, String chainDigest) {
    }
}
