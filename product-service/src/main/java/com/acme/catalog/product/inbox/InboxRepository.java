package com.acme.catalog.product.inbox;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.acme.catalog.product.projection.AggregateRevision;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.IntegrationEvent;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A generation's inbox (processed positions and their outcome) and its held events (PENDING: waiting for the
 * chain predecessor; PARKED: verified, waiting for a dependency). Callers hold the generation's cursor lock.
 */
@Repository
class InboxRepository {

    /**
     * A run's inbox rows and the cursor they advance, in one statement (one round trip less per delivery): the
     * data-modifying CTE runs whether or not the UPDATE reads it. The UPDATE is {@code GenerationRepository}'s
     * cursor save; its row count tells whether the locked generation still exists.
     */
    private static final String SQL_RECORD_AND_SAVE_CURSOR = """
            WITH recorded AS (
                INSERT INTO inbox (generation_id, position, event_id, event_type, outcome, chain_digest)
                SELECT ?, r.position, r.event_id::uuid, r.event_type, r.outcome, r.chain_digest
                  FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])
                       AS r(position, event_id, event_type, outcome, chain_digest)
            )
            UPDATE generation
               SET chain_position = ?, chain_digest = ?, applied_position = ?, highest_seen_position = ?,
                   updated_at = now()
             WHERE generation_id = ?
            """;
    private static final String SQL_HOLD = """
            INSERT INTO held_event (generation_id, position, state, wire, chain_digest, event_id, event_type,
                                    wait_type, wait_id, wait_revision)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;
    private static final String SQL_HOLD_PENDING_ALL = """
            INSERT INTO held_event (generation_id, position, state, wire, chain_digest, event_id, event_type)
            SELECT ?, h.position, 'PENDING', h.wire, h.chain_digest, h.event_id::uuid, h.event_type
              FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])
                   AS h(position, wire, chain_digest, event_id, event_type)
            """;
    private static final String SQL_PARKED_WAITS = """
            SELECT DISTINCT wait_type, wait_id FROM held_event WHERE generation_id = ? AND state = 'PARKED'
            """;
    private static final String SQL_PENDING_FROM = """
            SELECT position, wire, chain_digest FROM held_event
             WHERE generation_id = ? AND state = 'PENDING' AND position >= ? ORDER BY position LIMIT ?
            """;
    private static final String SQL_PENDING_DIGESTS = """
            SELECT position, chain_digest FROM held_event
             WHERE generation_id = ? AND state = 'PENDING' AND position = ANY(?)
            """;
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
    private static final String SQL_COUNT_HELD = "SELECT count(*) FROM held_event WHERE generation_id = ?";
    private static final String SQL_KNOWN_DIGESTS = """
            SELECT position, chain_digest FROM inbox WHERE generation_id = ? AND position = ANY(?)
            UNION ALL
            SELECT position, chain_digest FROM held_event
             WHERE generation_id = ? AND state = 'PARKED' AND position = ANY(?)
            """;
    private static final String SQL_START = """
            SELECT start_position, start_digest FROM generation WHERE generation_id = ? AND start_digest IS NOT NULL
            """;
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
        int n = processed.size();
        Long[] positions = new Long[n];
        String[] eventIds = new String[n];
        String[] types = new String[n];
        String[] outcomes = new String[n];
        String[] digests = new String[n];
        for (int i = 0; i < n; i++) {
            IntegrationEvent e = processed.get(i).event();
            positions[i] = e.position();
            eventIds[i] = e.eventId().toString();
            types[i] = e.type();
            outcomes[i] = processed.get(i).outcome().name();
            digests[i] = e.chainDigest();
        }
        long g = after.generationId();
        int rows = jdbc.sql(SQL_RECORD_AND_SAVE_CURSOR).params(g, positions, eventIds, types, outcomes, digests,
                after.chainPosition(), after.chainDigest(), after.appliedPosition(), after.highestSeenPosition(), g)
                .update();
        if (rows != 1) {
            throw new IllegalStateException("generation " + g + " vanished while locked");
        }
    }

    /** Holds events PENDING (their chain predecessor has not arrived), in one statement. */
    void holdPending(long generation, Collection<IntegrationEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        int n = events.size();
        Long[] positions = new Long[n];
        String[] wires = new String[n];
        String[] digests = new String[n];
        String[] eventIds = new String[n];
        String[] types = new String[n];
        int i = 0;
        for (IntegrationEvent e : events) {
            positions[i] = e.position();
            wires[i] = e.wire();
            digests[i] = e.chainDigest();
            eventIds[i] = e.eventId().toString();
            types[i++] = e.type();
        }
        jdbc.sql(SQL_HOLD_PENDING_ALL).params(generation, positions, wires, digests, eventIds, types).update();
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
        Map<Long, String> out = new HashMap<>();
        jdbc.sql(SQL_PENDING_DIGESTS).params(generation, positions).query(rs -> {
            out.put(rs.getLong(1), rs.getString(2));
        });
        return out;
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
        Set<Waited> out = new HashSet<>();
        jdbc.sql(SQL_PARKED_WAITS).params(generation).query(rs -> {
            out.add(new Waited(rs.getString(1), rs.getString(2)));
        });
        return out;
    }

    HeldSummary heldSummary(long generation) {
        return jdbc.sql(SQL_HELD_SUMMARY).params(generation).query(HeldSummary.class).single();
    }

    long countHeld(long generation) {
        return jdbc.sql(SQL_COUNT_HELD).params(generation).query(Long.class).single();
    }

    /** The verified chain digests recorded for these positions (processed or parked). */
    Map<Long, String> knownDigests(long generation, Long[] positions) {
        Map<Long, String> out = new HashMap<>();
        jdbc.sql(SQL_KNOWN_DIGESTS).params(generation, positions, generation, positions)
                .query(rs -> {
                    out.put(rs.getLong(1), rs.getString(2));
                });
        return out;
    }

    /** The position the generation started at and the chain digest there; empty when that digest is unknown. */
    Optional<StartPoint> start(long generation) {
        return jdbc.sql(SQL_START).params(generation)
                .query((rs, n) -> new StartPoint(rs.getLong(1), rs.getString(2))).optional();
    }

    /** Where a generation's chain starts: the export's W and its digest (0 and 64 zeros for an empty start). */
    record StartPoint(long position, String digest) {
    }

    /** Drops a PENDING event proven not to chain; @return whether it was still there */
    boolean discardPending(long generation, long position, String chainDigest) {
        return jdbc.sql(SQL_DISCARD_PENDING).params(generation, position, chainDigest).update() == 1;
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
