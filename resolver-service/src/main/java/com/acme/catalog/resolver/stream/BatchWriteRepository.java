package com.acme.catalog.resolver.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;
import com.acme.catalog.resolver.stream.StateAccess.RevisionRow;
import com.acme.catalog.resolver.stream.WriteGate.CursorLock;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Multi-row forms of the write path's statements, so a physical transaction of any size costs three round trips:
 * {@link #lockAndPrefetch} (the cursor lock of {@link CursorRepository}, then every read, sent together),
 * {@link #writeAll} (every row and the cursor advance of {@link CursorRepository} in one statement), and the
 * commit. Rows travel as parallel arrays through {@code unnest}; JSON text columns (the long ones) travel as one text
 * each, the values separated by U+001E ({@link #joinJson}), which JSON text never holds raw and which PostgreSQL
 * splits several times faster than it parses an array literal of quoted JSON. At most one current row per aggregate may be
 * passed (an upsert may not touch a row twice in one statement). Every current row is written together with its
 * revision row, whose content is the event payload, so the JSON of a current row (item attributes, policy rules,
 * release items) is not sent or parsed a second time: the state insert takes it from the revision rows the same
 * statement inserted ({@code RETURNING}), so both are one parsed value.
 */
@Repository
class BatchWriteRepository {

    /**
     * Current revisions of the named aggregates, then which named (item, revision) pairs are live. Each lookup is
     * a lateral probe of the primary key per id, so the plan does not depend on table statistics.
     */
    private static final String SQL_PREFETCH = """
            SELECT 'item' AS kind, q.id, a.revision, a.deleted
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision, deleted FROM item
                                   WHERE tenant = ? AND catalog = ? AND item_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'mapping', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM mapping
                                   WHERE tenant = ? AND catalog = ? AND mapping_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'policy', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM policy
                                   WHERE tenant = ? AND catalog = ? AND policy_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'release', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM release
                                   WHERE tenant = ? AND catalog = ? AND release_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'live-item-revision', q.item_id, q.revision, false
              FROM unnest(?::text[], ?::int[]) AS q(item_id, revision)
              CROSS JOIN LATERAL (SELECT 1 FROM accepted_revision
                                   WHERE tenant = ? AND catalog = ? AND aggregate_type = 'item'
                                     AND aggregate_id = q.item_id AND revision = q.revision AND NOT deleted
                                  OFFSET 0) a
            """;

    /**
     * Generic plans for the rest of the write transaction. The prefetch's custom plan is no better than its generic
     * one (lateral primary-key probes either way), but PostgreSQL's plan cache keeps choosing custom plans for it,
     * because only a custom plan sees how long each array is and the generic plan's estimate looks dearer; so it
     * was planned afresh on every physical write: 0.4 ms of planning against 0.04 ms of execution, measured with
     * {@code pg_stat_statements} (docs/benchmarks.md). The write statement already runs on its generic plan.
     */
    private static final String SQL_GENERIC_PLANS = "SET LOCAL plan_cache_mode = force_generic_plan";

    /**
     * Generic plans, the maintenance hold and the cursor lock ({@link CursorRepository#SQL_LOCK_OPEN}), then the
     * prefetch: four statements in one round trip. Under READ COMMITTED the prefetch takes its snapshot after the lock
     * was granted, so it sees every write committed before.
     */
    private static final String SQL_LOCK_THEN_PREFETCH = SQL_GENERIC_PLANS + ";\n"
            + CursorRepository.SQL_LOCK_OPEN.strip() + ";\n" + SQL_PREFETCH;

    /**
     * Every row of one physical transaction and the compare-and-set cursor advance in one statement; each part
     * inserts nothing for empty arrays. Answers one row per cursor row moved (1, or none if the cursor was not where
     * the caller locked it); the advance also queues the notification PostgreSQL delivers at commit to wake the
     * outbox relay, as {@link CursorRepository#advance} does.
     */
    private static final String SQL_WRITE_ALL = """
            WITH revisions AS (
                INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content,
                                               deleted, epoch, position, event_id)
                SELECT ?, ?, u.aggregate_type, u.aggregate_id, u.revision, u.content::jsonb, u.deleted, u.epoch,
                       u.position, u.event_id
                  FROM unnest(?::text[], ?::text[], ?::int[], string_to_array(?, chr(30)), ?::boolean[], ?::bigint[], ?::bigint[],
                              ?::uuid[])
                       AS u(aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id) /*guard*/
                RETURNING aggregate_type, aggregate_id, revision, content
            ), items AS (
                INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                SELECT ?, ?, u.item_id, u.revision,
                       CASE WHEN u.deleted THEN '{}'::jsonb ELSE r.content -> 'attributes' END,
                       u.deleted, u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::boolean[], ?::bigint[], ?::bigint[])
                       AS u(item_id, revision, deleted, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'item' AND r.aggregate_id = u.item_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, item_id) DO UPDATE
                   SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), mappings AS (
                INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
                SELECT ?, ?, u.mapping_id, u.revision, u.source, u.target, u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])
                       AS u(mapping_id, revision, source, target, epoch, position) /*guard*/
                ON CONFLICT (tenant, catalog, mapping_id) DO UPDATE
                   SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), policies AS (
                INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
                SELECT ?, ?, u.policy_id, u.revision, r.content -> 'rules', u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::bigint[], ?::bigint[])
                       AS u(policy_id, revision, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'policy' AND r.aggregate_id = u.policy_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, policy_id) DO UPDATE
                   SET revision = excluded.revision, rules = excluded.rules,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), releases AS (
                INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
                SELECT ?, ?, u.release_id, u.revision, u.visibility, r.content -> 'items', u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[])
                       AS u(release_id, revision, visibility, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'release' AND r.aggregate_id = u.release_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, release_id) DO UPDATE
                   SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), outboxed AS (
                INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id, transaction_ordinal,
                                    transaction_count, event_type, aggregate_type, aggregate_id, revision, wire,
                                    chain_digest, occurred_at)
                SELECT ?, ?, u.epoch, u.position, u.event_id, u.transaction_id, u.ordinal, u.count, u.event_type,
                       u.aggregate_type, u.aggregate_id, u.revision, u.wire, u.chain_digest, u.occurred_at
                  FROM unnest(?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[], ?::int[], ?::int[], ?::text[],
                              ?::text[], ?::text[], ?::int[], string_to_array(?, chr(30)), ?::text[], ?::timestamptz[])
                       AS u(epoch, position, event_id, transaction_id, ordinal, count, event_type, aggregate_type,
                            aggregate_id, revision, wire, chain_digest, occurred_at) /*guard*/
            ), advanced AS (
            """ + CursorRepository.SQL_ADVANCE.strip() + """
             RETURNING 1
            )
            SELECT pg_notify('outbox_committed', ?) FROM advanced
            """;

    /**
     * The maintenance hold and the cursor lock, then {@link #SQL_WRITE_ALL} made conditional on the locked cursor
     * being exactly where the rows were prepared from (epoch, position and chain digest), as three statements in one
     * round trip; the {@link WriteGate} judges the lock before the commit. Under READ
     * COMMITTED the second statement's snapshot is taken after the lock is held. When the cursor is elsewhere
     * (someone else wrote the stream since), nothing is inserted and no cursor row moves, so the statement answers no
     * row (instead of one) and no constraint of the rows it meant to write can fire instead. The advance wakes the outbox relay at
     * commit like every write path's advance.
     */
    private static final String SQL_LOCK_THEN_WRITE_PREPARED = CursorRepository.SQL_LOCK_OPEN.strip() + ";\n"
            + "WITH guard AS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ? "
            + "AND position = ? AND chain_digest = ? AND fenced_at IS NULL),\n"
            + SQL_WRITE_ALL.strip().substring("WITH ".length())
                    .replace("/*guard*/", "WHERE EXISTS (SELECT 1 FROM guard)");

    private static final char JSON_SEPARATOR = '\u001e';

    private final JdbcClient jdbc;
    private final JdbcTemplate template;

    BatchWriteRepository(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.template = template;
    }

    /**
     * Locks the stream's open cursor row (as {@link CursorRepository#lockCursor} does when the row exists) and
     * then prefetches, in one round trip.
     *
     * @return the locked cursor and what was read; the cursor is null when the stream has no open cursor row yet
     *         (then nothing is locked and the prefetch must be repeated after {@link CursorRepository#lockCursor})
     */
    LockedPrefetch lockAndPrefetch(StreamId s, Map<String, ? extends Collection<String>> idsByType,
            List<Change.ItemRef> refs) {
        List<Object> p = new ArrayList<>();
        p.add(s.tenant());
        p.add(s.catalog());
        p.addAll(prefetchParams(s, idsByType, refs));
        return template.execute(SQL_LOCK_THEN_PREFETCH, (PreparedStatementCallback<LockedPrefetch>) ps -> {
            new ArgumentPreparedStatementSetter(p.toArray()).setValues(ps);
            ps.execute();
            if (!ps.getMoreResults()) { // past the SET, to the maintenance hold
                throw new IllegalStateException("the maintenance hold after the plan setting returned no rows");
            }
            CursorLock cursor = CursorRepository.nextLock(ps, s);
            if (!ps.getMoreResults()) {
                throw new IllegalStateException("the prefetch after the cursor lock returned no rows");
            }
            Prefetched found = new Prefetched(new HashMap<>(), new HashSet<>());
            try (ResultSet rs = ps.getResultSet()) {
                while (rs.next()) {
                    found.add(rs);
                }
            }
            return new LockedPrefetch(cursor, found);
        });
    }

    /**
     * Reads, in one round trip, the current revision of every named aggregate (absent ids never existed) and which
     * of the named item revisions exist and are not deletions.
     */
    Prefetched prefetch(StreamId s, Map<String, ? extends Collection<String>> idsByType, List<Change.ItemRef> refs) {
        Prefetched found = new Prefetched(new HashMap<>(), new HashSet<>());
        jdbc.sql(SQL_PREFETCH).params(prefetchParams(s, idsByType, refs)).query(found::add);
        return found;
    }

    private static List<Object> prefetchParams(StreamId s, Map<String, ? extends Collection<String>> idsByType,
            List<Change.ItemRef> refs) {
        String[] refIds = new String[refs.size()];
        int[] refRevisions = new int[refs.size()];
        for (int i = 0; i < refIds.length; i++) {
            refIds[i] = refs.get(i).itemId();
            refRevisions[i] = refs.get(i).revision();
        }
        List<Object> p = new ArrayList<>();
        for (String type : List.of("item", "mapping", "policy", "release")) {
            Collection<String> ids = idsByType.get(type);
            p.add(ids == null ? new String[0] : ids.toArray(String[]::new));
            p.add(s.tenant());
            p.add(s.catalog());
        }
        p.add(refIds);
        p.add(refRevisions);
        p.add(s.tenant());
        p.add(s.catalog());
        return p;
    }

    static String key(String itemId, int revision) {
        return itemId + '\u0000' + revision;
    }

    /**
     * Writes current rows, revisions and outbox rows of one physical transaction and moves the locked cursor from
     * {@code from} to {@code to}, in one statement.
     *
     * @throws IllegalStateException when the cursor was not at {@code from} (the caller does not hold the lock)
     */
    void writeAll(StreamId s, List<ItemRow> items, List<MappingRow> mappings, List<PolicyRow> policies,
            List<ReleaseRow> releases, List<RevisionRow> revisions, List<OutboxRow> outbox, Cursor from,
            Cursor to) {
        List<Object> p = rowParams(s, items, mappings, policies, releases, revisions, outbox);
        p.addAll(List.of(to.position(), to.chainDigest(), s.tenant(), s.catalog(), from.epoch(), from.position()));
        p.add(s.tenant() + "/" + s.catalog() + "/" + from.epoch());
        long moved = jdbc.sql(SQL_WRITE_ALL).params(p).query((rs, n) -> 1).list().size();
        if (moved != 1) {
            throw new IllegalStateException("cursor of " + s + " epoch " + from.epoch()
                    + " moved under a held lock (expected position " + from.position() + ")");
        }
    }

    /** The row parameters of {@link #SQL_WRITE_ALL}, in order, without the cursor advance's. */
    static List<Object> rowParams(StreamId s, List<ItemRow> items, List<MappingRow> mappings,
            List<PolicyRow> policies, List<ReleaseRow> releases, List<RevisionRow> revisions, List<OutboxRow> outbox) {
        List<Object> p = new ArrayList<>(80);
        addRevisions(p, s, revisions);
        addItems(p, s, items);
        addMappings(p, s, mappings);
        addPolicies(p, s, policies);
        addReleases(p, s, releases);
        addOutbox(p, s, outbox);
        return p;
    }

    /**
     * Every parameter of {@link #SQL_LOCK_THEN_WRITE_PREPARED} for rows prepared from cursor {@code from} that leave
     * it at {@code to}; built without the database, so it can be done ahead of the transaction.
     */
    static Object[] preparedParams(StreamId s, List<Object> rowParams, Cursor from, Cursor to) {
        List<Object> p = new ArrayList<>(rowParams.size() + 14);
        p.addAll(List.of(s.tenant(), s.catalog()));
        p.addAll(List.of(s.tenant(), s.catalog(), from.epoch(), from.position(), from.chainDigest()));
        p.addAll(rowParams);
        p.addAll(List.of(to.position(), to.chainDigest(), s.tenant(), s.catalog(), from.epoch(), from.position()));
        p.add(s.tenant() + "/" + s.catalog() + "/" + from.epoch());
        return p.toArray();
    }

    /**
     * Locks the stream's open cursor row and, in the same round trip, writes the prepared rows and advances the
     * cursor, but only if the locked cursor is exactly the one they were prepared from.
     *
     * @return the cursor as locked (null when the stream has no open cursor row: nothing locked, nothing written)
     *         and whether the rows were written
     */
    PreparedWrite lockThenWritePrepared(StreamId s, Object[] params) {
        return template.execute(SQL_LOCK_THEN_WRITE_PREPARED, (PreparedStatementCallback<PreparedWrite>) ps -> {
            new ArgumentPreparedStatementSetter(params).setValues(ps);
            ps.execute();
            CursorLock cursor = CursorRepository.nextLock(ps, s);
            if (!ps.getMoreResults()) {
                throw new IllegalStateException("the write after the cursor lock answered nothing");
            }
            int moved = 0;
            try (ResultSet rs = ps.getResultSet()) {
                while (rs.next()) {
                    moved++;
                }
            }
            return new PreparedWrite(cursor, moved == 1);
        });
    }

    private static void addItems(List<Object> p, StreamId s, List<ItemRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        boolean[] deleted = new boolean[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            ItemRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            deleted[i] = r.deleted();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), ids, revisions, deleted, epochs, positions));
    }

    private static void addMappings(List<Object> p, StreamId s, List<MappingRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] sources = new String[n];
        String[] targets = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            MappingRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            sources[i] = r.source();
            targets[i] = r.target();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), ids, revisions, sources, targets, epochs, positions));
    }

    private static void addPolicies(List<Object> p, StreamId s, List<PolicyRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            PolicyRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), ids, revisions, epochs, positions));
    }

    private static void addReleases(List<Object> p, StreamId s, List<ReleaseRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] visibilities = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            ReleaseRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            visibilities[i] = r.visibility();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), ids, revisions, visibilities, epochs, positions));
    }

    private static void addRevisions(List<Object> p, StreamId s, List<RevisionRow> rows) {
        int n = rows.size();
        String[] types = new String[n];
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] contents = new String[n];
        boolean[] deleted = new boolean[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        String[] eventIds = new String[n];
        for (int i = 0; i < n; i++) {
            RevisionRow r = rows.get(i);
            types[i] = r.aggregateType();
            ids[i] = r.aggregateId();
            revisions[i] = r.revision();
            contents[i] = r.contentJson();
            deleted[i] = r.deleted();
            epochs[i] = r.epoch();
            positions[i] = r.position();
            eventIds[i] = r.eventId().toString();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), types, ids, revisions, joinJson(contents), deleted, epochs,
                positions,
                eventIds));
    }

    private static void addOutbox(List<Object> p, StreamId s, List<OutboxRow> rows) {
        int n = rows.size();
        long[] epochs = new long[n];
        long[] positions = new long[n];
        String[] eventIds = new String[n];
        String[] transactionIds = new String[n];
        int[] ordinals = new int[n];
        int[] counts = new int[n];
        String[] types = new String[n];
        String[] aggregateTypes = new String[n];
        String[] aggregateIds = new String[n];
        Integer[] revisions = new Integer[n];
        String[] wires = new String[n];
        String[] digests = new String[n];
        String[] occurredAt = new String[n];
        for (int i = 0; i < n; i++) {
            OutboxRow r = rows.get(i);
            epochs[i] = r.epoch();
            positions[i] = r.position();
            eventIds[i] = r.eventId().toString();
            transactionIds[i] = r.transactionId().toString();
            ordinals[i] = r.transactionOrdinal();
            counts[i] = r.transactionCount();
            types[i] = r.type();
            aggregateTypes[i] = r.aggregateType();
            aggregateIds[i] = r.aggregateId();
            revisions[i] = r.revision();
            wires[i] = r.wire();
            digests[i] = r.chainDigest();
            occurredAt[i] = r.occurredAt().toString();
        }
        p.addAll(List.of(s.tenant(), s.catalog(), epochs, positions, eventIds, transactionIds, ordinals, counts,
                types, aggregateTypes, aggregateIds, revisions, joinJson(wires), digests, occurredAt));
    }

    /**
     * JSON texts as one string, separated by U+001E, for {@code string_to_array(?, chr(30))}. A JSON text never
     * holds a raw control character (inside strings they must be escaped), so the separator is unambiguous.
     */
    static String joinJson(String[] texts) {
        int length = texts.length;
        for (String t : texts) {
            length += t.length();
        }
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < texts.length; i++) {
            if (texts[i].indexOf(JSON_SEPARATOR) >= 0) {
                throw new IllegalArgumentException("not JSON text: it holds a raw U+001E");
            }
            if (i > 0) {
                sb.append(JSON_SEPARATOR);
            }
            sb.append(texts[i]);
        }
        return sb.toString();
    }

    /** What a prefetch found: type -> id -> current revision, and live item revisions as {@link #key}s. */
    record Prefetched(Map<String, Map<String, CurrentRevision>> current, Set<String> liveItemRevisions) {

        private void add(ResultSet rs) throws SQLException {
            String kind = rs.getString(1);
            if (kind.equals("live-item-revision")) {
                liveItemRevisions.add(key(rs.getString(2), rs.getInt(3)));
            } else {
                current.computeIfAbsent(kind, k -> new HashMap<>())
                        .put(rs.getString(2), new CurrentRevision(rs.getInt(3), rs.getBoolean(4)));
            }
        }
    }

    /**
     * What the cursor lock read (null: no open cursor row yet, nothing locked; otherwise still to be admitted by the
     * {@link WriteGate}) and the prefetch read after the lock.
     */
    record LockedPrefetch(CursorLock lock, Prefetched prefetched) {
    }

    /**
     * What {@link #lockThenWritePrepared} found: what the cursor lock read (null: no open cursor row; otherwise still
     * to be admitted by the {@link WriteGate}, before the commit) and whether it wrote.
     */
    record PreparedWrite(CursorLock lock, boolean written) {
    }

    record ItemRow(String id, int revision, String attributesJson, boolean deleted, long epoch, long position) {
    }

    record MappingRow(String id, int revision, String source, String target, long epoch, long position) {
    }

    record PolicyRow(String id, int revision, String rulesJson, long epoch, long position) {
    }

    record ReleaseRow(String id, int revision, String visibility, String itemsJson, long epoch, long position) {
    }

}
