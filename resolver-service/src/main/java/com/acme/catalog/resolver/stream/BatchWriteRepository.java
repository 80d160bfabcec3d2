package com.acme.catalog.resolver.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.JsonTexts;
import com.acme.catalog.platform.sql.ResultColumns;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;
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
 * each, the values separated by U+001E ({@link JsonTexts#join}), which JSON text never holds raw and which PostgreSQL
 * splits several times faster than it parses an array literal of quoted JSON. At most one current row per aggregate may be
 * passed (an upsert may not touch a row twice in one statement). Every current row is written together with its
 * revision row, whose content is the event payload, so the JSON of a current row (item attributes, policy rules,
 * release items) is not sent or parsed a second time: the state insert takes it from the revision rows the same
 * statement inserted ({@code RETURNING}), so both are one parsed value.
 *
 * <p>Each statement is assembled once, as data, by {@link BoundSql}: every piece of text carries the values of its
 * own placeholders, each row source is an {@link UnnestColumns} that emits every {@code unnest} column together with
 * its array, and the cursor's statements are included from {@link CursorRepository} with their parameters. So the
 * about eighty positional parameters cannot drift from the text, and the guarded variant is built from the same
 * parts rather than derived from the other's text.
 */
@Repository
class BatchWriteRepository {

    /** The aggregate types the prefetch reads the current revision of, each with its table and id column. */
    private static final List<CurrentTable> CURRENT_TABLES = List.of(
            new CurrentTable(AggregateType.ITEM.wire(), "item_id", "revision, deleted", "a.deleted"),
            new CurrentTable(AggregateType.MAPPING.wire(), "mapping_id", "revision", "false"),
            new CurrentTable(AggregateType.POLICY.wire(), "policy_id", "revision", "false"),
            new CurrentTable(AggregateType.RELEASE.wire(), "release_id", "revision", "false"));

    private static final UnnestColumns<Change.ItemRef> REF_COLUMNS = UnnestColumns.of(Change.ItemRef.class, "q")
            .text("item_id", Change.ItemRef::itemId)
            .ints("revision", Change.ItemRef::revision);

    /**
     * Current revisions of the named aggregates, then which named (item, revision) pairs are live. Each lookup is
     * a lateral probe of the primary key per id, so the plan does not depend on table statistics.
     */
    static final BoundSql<Lookup> PREFETCH = prefetch(BoundSql.builder()).build();

    /**
     * Generic plans for the rest of the write transaction. The prefetch's custom plan is no better than its generic
     * one (lateral primary-key probes either way), but PostgreSQL's plan cache keeps choosing custom plans for it,
     * because only a custom plan sees how long each array is and the generic plan's estimate looks dearer; so it
     * was planned afresh on every physical write, ten times its execution time ({@code pg_stat_statements}). The
     * write statement already runs on its generic plan.
     */
    private static final String SQL_GENERIC_PLANS = "SET LOCAL plan_cache_mode = force_generic_plan";

    /**
     * Generic plans, the maintenance hold and the cursor lock ({@link CursorRepository#LOCK_OPEN}), then the
     * prefetch: four statements in one round trip. Under READ COMMITTED the prefetch takes its snapshot after the lock
     * was granted, so it sees every write committed before.
     */
    static final BoundSql<Lookup> LOCK_THEN_PREFETCH = prefetch(BoundSql.<Lookup>builder()
            .sql(SQL_GENERIC_PLANS + ";\n")
            .include(CursorRepository.LOCK_OPEN, Lookup::stream)
            .sql(";\n")).build();

    /**
     * {@link #LOCK_THEN_PREFETCH}, then the lookup of the writes' idempotency keys ({@link WriteKeys#FIND}): five
     * statements in one round trip, the lookup, like the prefetch, with a snapshot taken after the lock was granted.
     */
    static final BoundSql<KeyedLookup> LOCK_THEN_PREFETCH_THEN_FIND_KEYS = BoundSql.<KeyedLookup>builder()
            .include(LOCK_THEN_PREFETCH, KeyedLookup::lookup)
            .sql(";\n")
            .include(WriteKeys.FIND, k -> new WriteKeys.Lookup(k.lookup().stream(), k.keys()))
            .build();

    private static final UnnestColumns<RevisionRow> REVISION_COLUMNS = UnnestColumns.of(RevisionRow.class)
            .text("aggregate_type", RevisionRow::aggregateType)
            .text("aggregate_id", RevisionRow::aggregateId)
            .ints("revision", RevisionRow::revision)
            .jsonTexts("content", RevisionRow::contentJson)
            .flags("deleted", RevisionRow::deleted)
            .bigints("epoch", RevisionRow::epoch)
            .bigints("position", RevisionRow::position)
            .uuids("event_id", RevisionRow::eventId);

    private static final UnnestColumns<ItemRow> ITEM_COLUMNS = UnnestColumns.of(ItemRow.class)
            .text("item_id", ItemRow::id)
            .ints("revision", ItemRow::revision)
            .flags("deleted", ItemRow::deleted)
            .bigints("epoch", ItemRow::epoch)
            .bigints("position", ItemRow::position);

    private static final UnnestColumns<MappingRow> MAPPING_COLUMNS = UnnestColumns.of(MappingRow.class)
            .text("mapping_id", MappingRow::id)
            .ints("revision", MappingRow::revision)
            .text("source", MappingRow::source)
            .text("target", MappingRow::target)
            .bigints("epoch", MappingRow::epoch)
            .bigints("position", MappingRow::position);

    private static final UnnestColumns<PolicyRow> POLICY_COLUMNS = UnnestColumns.of(PolicyRow.class)
            .text("policy_id", PolicyRow::id)
            .ints("revision", PolicyRow::revision)
            .bigints("epoch", PolicyRow::epoch)
            .bigints("position", PolicyRow::position);

    private static final UnnestColumns<ReleaseRow> RELEASE_COLUMNS = UnnestColumns.of(ReleaseRow.class)
            .text("release_id", ReleaseRow::id)
            .ints("revision", ReleaseRow::revision)
            .text("visibility", ReleaseRow::visibility)
            .bigints("epoch", ReleaseRow::epoch)
            .bigints("position", ReleaseRow::position);

    private static final UnnestColumns<OutboxRow> OUTBOX_COLUMNS = UnnestColumns.of(OutboxRow.class)
            .bigints("epoch", OutboxRow::epoch)
            .bigints("position", OutboxRow::position)
            .uuids("event_id", OutboxRow::eventId)
            .uuids("transaction_id", OutboxRow::transactionId)
            .ints("ordinal", OutboxRow::transactionOrdinal)
            .ints("count", OutboxRow::transactionCount)
            .text("event_type", OutboxRow::type)
            .text("aggregate_type", OutboxRow::aggregateType)
            .text("aggregate_id", OutboxRow::aggregateId)
            .nullableInts("revision", OutboxRow::revision)
            .jsonTexts("wire", OutboxRow::wire)
            .text("chain_digest", OutboxRow::chainDigest)
            .timestamps("occurred_at", OutboxRow::occurredAt);

    /**
     * Every row of one physical transaction and the compare-and-set cursor advance
     * ({@link CursorRepository#ADVANCE}) in one statement; each part inserts nothing for empty arrays. Answers one
     * row per cursor row moved (1, or none if the cursor was not where the caller locked it); the advance also
     * queues the notification PostgreSQL delivers at commit to wake the outbox relay, as
     * {@link CursorRepository#advance} does.
     */
    static final BoundSql<Write> WRITE_ALL = writeRows(BoundSql.<Write>builder().sql("WITH "), "").build();

    /**
     * {@link #WRITE_ALL}, then the store of the idempotency keys of the writes it holds ({@link WriteKeys#REMEMBER}),
     * in one round trip.
     */
    static final BoundSql<KeyedWrite> WRITE_ALL_THEN_REMEMBER_KEYS = BoundSql.<KeyedWrite>builder()
            .include(WRITE_ALL, KeyedWrite::write)
            .sql(";\n")
            .include(WriteKeys.REMEMBER, k -> new WriteKeys.Remember(k.write().rows().stream(), k.remembered()))
            .build();

    /** What makes {@link #LOCK_THEN_WRITE_PREPARED}'s parts insert nothing: the locked cursor is elsewhere. */
    private static final String GUARD = "WHERE EXISTS (SELECT 1 FROM guard)";

    /**
     * The maintenance hold and the cursor lock, then {@link #WRITE_ALL} made conditional on the locked cursor
     * being exactly where the rows were prepared from (epoch, position and chain digest), as three statements in one
     * round trip; the {@link WriteGate} judges the lock before the commit. Under READ COMMITTED the second
     * statement's snapshot is taken after the lock is held. When the cursor is elsewhere (someone else wrote the
     * stream since), nothing is inserted and no cursor row moves, so the statement answers no row (instead of one)
     * and no constraint of the rows it meant to write can fire instead. The advance wakes the outbox relay at commit
     * like every write path's advance.
     */
    static final BoundSql<Write> LOCK_THEN_WRITE_PREPARED = writeRows(BoundSql.<Write>builder()
            .include(CursorRepository.LOCK_OPEN, w -> w.rows().stream())
            .sql(";\nWITH guard AS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ? "
                    + "AND position = ? AND chain_digest = ? AND fenced_at IS NULL),\n",
                    w -> w.rows().stream().tenant(), w -> w.rows().stream().catalog(), w -> w.from().epoch(),
                    w -> w.from().position(), w -> w.from().chainDigest()), GUARD).build();

    private static BoundSql.Builder<Lookup> prefetch(BoundSql.Builder<Lookup> b) {
        for (CurrentTable t : CURRENT_TABLES) {
            String type = t.type();
            b.sql("""
                    SELECT '%s'%s, q.id, a.revision, %s
                      FROM unnest(?::text[]) AS q(id)
                      CROSS JOIN LATERAL (SELECT %s FROM %s
                                           WHERE tenant = ? AND catalog = ? AND %s = q.id OFFSET 0) a
                    UNION ALL
                    """.formatted(type, t == CURRENT_TABLES.get(0) ? " AS kind" : "", t.deleted(), t.read(), type,
                            t.idColumn()),
                    l -> l.ids(type), Lookup::tenant, Lookup::catalog);
        }
        return b.sql("SELECT 'live-item-revision', q.item_id, q.revision, false\n  FROM ")
                .unnest(Lookup::refs, REF_COLUMNS)
                .sql("""

                          CROSS JOIN LATERAL (SELECT 1 FROM accepted_revision
                                               WHERE tenant = ? AND catalog = ? AND aggregate_type = 'item'
                                                 AND aggregate_id = q.item_id AND revision = q.revision AND NOT deleted
                                              OFFSET 0) a
                        """, Lookup::tenant, Lookup::catalog);
    }

    /**
     * The parts of the write statement after its {@code WITH}: revisions, current rows, outbox rows, the cursor
     * advance and the relay's wake-up; {@code where} follows every part's row source (empty, or {@link #GUARD}).
     */
    private static BoundSql.Builder<Write> writeRows(BoundSql.Builder<Write> b, String where) {
        Function<Write, Object> tenant = w -> w.rows().stream().tenant();
        Function<Write, Object> catalog = w -> w.rows().stream().catalog();
        return b.sql("""
                revisions AS (
                    INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content,
                                                   deleted, epoch, position, event_id)
                    SELECT ?, ?, u.aggregate_type, u.aggregate_id, u.revision, u.content::jsonb, u.deleted, u.epoch,
                           u.position, u.event_id
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().revisions(), REVISION_COLUMNS)
                .sql(" " + where + """

                    RETURNING aggregate_type, aggregate_id, revision, content
                ), items AS (
                    INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                    SELECT ?, ?, u.item_id, u.revision,
                           CASE WHEN u.deleted THEN '{}'::jsonb ELSE r.content -> 'attributes' END,
                           u.deleted, u.epoch, u.position
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().items(), ITEM_COLUMNS)
                .sql("""

                      LEFT JOIN revisions r
                             ON r.aggregate_type = 'item' AND r.aggregate_id = u.item_id AND r.revision = u.revision
                    """ + where + """

                    ON CONFLICT (tenant, catalog, item_id) DO UPDATE
                       SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                           epoch = excluded.epoch, position = excluded.position, updated_at = now()
                ), mappings AS (
                    INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
                    SELECT ?, ?, u.mapping_id, u.revision, u.source, u.target, u.epoch, u.position
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().mappings(), MAPPING_COLUMNS)
                .sql(" " + where + """

                    ON CONFLICT (tenant, catalog, mapping_id) DO UPDATE
                       SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                           epoch = excluded.epoch, position = excluded.position, updated_at = now()
                ), policies AS (
                    INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
                    SELECT ?, ?, u.policy_id, u.revision, r.content -> 'rules', u.epoch, u.position
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().policies(), POLICY_COLUMNS)
                .sql("""

                      LEFT JOIN revisions r
                             ON r.aggregate_type = 'policy' AND r.aggregate_id = u.policy_id AND r.revision = u.revision
                    """ + where + """

                    ON CONFLICT (tenant, catalog, policy_id) DO UPDATE
                       SET revision = excluded.revision, rules = excluded.rules,
                           epoch = excluded.epoch, position = excluded.position, updated_at = now()
                ), releases AS (
                    INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
                    SELECT ?, ?, u.release_id, u.revision, u.visibility, r.content -> 'items', u.epoch, u.position
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().releases(), RELEASE_COLUMNS)
                .sql("""

                      LEFT JOIN revisions r
                             ON r.aggregate_type = 'release' AND r.aggregate_id = u.release_id
                            AND r.revision = u.revision
                    """ + where + """

                    ON CONFLICT (tenant, catalog, release_id) DO UPDATE
                       SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                           epoch = excluded.epoch, position = excluded.position, updated_at = now()
                ), outboxed AS (
                    INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id, transaction_ordinal,
                                        transaction_count, event_type, aggregate_type, aggregate_id, revision, wire,
                                        chain_digest, occurred_at)
                    SELECT ?, ?, u.epoch, u.position, u.event_id, u.transaction_id, u.ordinal, u.count, u.event_type,
                           u.aggregate_type, u.aggregate_id, u.revision, u.wire, u.chain_digest, u.occurred_at
                      FROM\s""", tenant, catalog)
                .unnest(w -> w.rows().outbox(), OUTBOX_COLUMNS)
                .sql(" " + where + "\n), advanced AS (\n")
                .include(CursorRepository.ADVANCE, w -> new CursorRepository.Advance(w.rows().stream(), w.from(),
                        w.to()))
                .sql("""

                 RETURNING 1
                )
                SELECT pg_notify('outbox_committed', ?) FROM advanced
                """, w -> w.rows().stream().tenant() + "/" + w.rows().stream().catalog() + "/" + w.from().epoch());
    }

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
        return lockAndPrefetch(s, idsByType, refs, List.of());
    }

    /**
     * {@link #lockAndPrefetch(StreamId, Map, List)} that also looks up the writes' idempotency keys after the lock,
     * in the same round trip (none looked up when {@code keys} is empty).
     */
    LockedPrefetch lockAndPrefetch(StreamId s, Map<String, ? extends Collection<String>> idsByType,
            List<Change.ItemRef> refs, List<IdempotencyKey> keys) {
        Lookup lookup = new Lookup(s, idsByType, refs);
        String sql = keys.isEmpty() ? LOCK_THEN_PREFETCH.sql() : LOCK_THEN_PREFETCH_THEN_FIND_KEYS.sql();
        Object[] params = keys.isEmpty() ? LOCK_THEN_PREFETCH.params(lookup)
                : LOCK_THEN_PREFETCH_THEN_FIND_KEYS.params(new KeyedLookup(lookup, keys));
        return template.execute(sql, (PreparedStatementCallback<LockedPrefetch>) ps -> {
            new ArgumentPreparedStatementSetter(params).setValues(ps);
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
                found.addAll(rs);
            }
            Map<WriteKeys.Scoped, WriteKeys.Stored> stored = new HashMap<>();
            if (!keys.isEmpty()) {
                if (!ps.getMoreResults()) {
                    throw new IllegalStateException("the key lookup after the prefetch returned no rows");
                }
                try (ResultSet rs = ps.getResultSet()) {
                    WriteKeys.readFound(rs, stored);
                }
            }
            return new LockedPrefetch(cursor, found, stored);
        });
    }

    /**
     * Reads, in one round trip, the current revision of every named aggregate (absent ids never existed) and which
     * of the named item revisions exist and are not deletions.
     */
    Prefetched prefetch(StreamId s, Map<String, ? extends Collection<String>> idsByType, List<Change.ItemRef> refs) {
        Prefetched found = new Prefetched(new HashMap<>(), new HashSet<>());
        jdbc.sql(PREFETCH.sql()).params(PREFETCH.params(new Lookup(s, idsByType, refs))).query(rs -> {
            found.addAll(rs);
            return found;
        });
        return found;
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
    void writeAll(Rows rows, Cursor from, Cursor to) {
        writeAll(rows, from, to, List.of());
    }

    /**
     * {@link #writeAll(Rows, Cursor, Cursor)} that also stores the idempotency keys of the writes, in the same round
     * trip.
     */
    void writeAll(Rows rows, Cursor from, Cursor to, List<WriteKeys.Remembered> keys) {
        long moved;
        if (keys.isEmpty()) {
            moved = jdbc.sql(WRITE_ALL.sql()).params(WRITE_ALL.params(new Write(rows, from, to)))
                    .query((rs, n) -> 1).list().size();
        } else {
            Object[] params = WRITE_ALL_THEN_REMEMBER_KEYS.params(new KeyedWrite(new Write(rows, from, to), keys));
            moved = template.execute(WRITE_ALL_THEN_REMEMBER_KEYS.sql(), (PreparedStatementCallback<Long>) ps -> {
                new ArgumentPreparedStatementSetter(params).setValues(ps);
                ps.execute();
                long n = 0;
                try (ResultSet rs = ps.getResultSet()) {
                    while (rs.next()) {
                        n++;
                    }
                }
                ps.getMoreResults(); // the keys' insert: its count is the number of keys, or it threw
                return n;
            });
        }
        if (moved != 1) {
            throw new IllegalStateException("cursor of " + rows.stream() + " epoch " + from.epoch()
                    + " moved under a held lock (expected position " + from.position() + ")");
        }
    }

    /**
     * Every parameter of {@link #LOCK_THEN_WRITE_PREPARED} for rows prepared from cursor {@code from} that leave
     * it at {@code to}; built without the database, so it can be done ahead of the transaction.
     */
    static Object[] preparedParams(Rows rows, Cursor from, Cursor to) {
        return LOCK_THEN_WRITE_PREPARED.params(new Write(rows, from, to));
    }

    /**
     * Locks the stream's open cursor row and, in the same round trip, writes the prepared rows and advances the
     * cursor, but only if the locked cursor is exactly the one they were prepared from.
     *
     * @return the cursor as locked (null when the stream has no open cursor row: nothing locked, nothing written)
     *         and whether the rows were written
     */
    PreparedWrite lockThenWritePrepared(StreamId s, Object[] params) {
        return template.execute(LOCK_THEN_WRITE_PREPARED.sql(), (PreparedStatementCallback<PreparedWrite>) ps -> {
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

    /** What a prefetch found: type -> id -> current revision, and live item revisions as {@link #key}s. */
    record Prefetched(Map<String, Map<String, CurrentRevision>> current, Set<String> liveItemRevisions) {

        /** The prefetch's columns, named by its first branch (the item table's). */
        private static final ResultColumns COLUMNS = ResultColumns.of("kind", "id", "revision", "deleted");

        private void addAll(ResultSet rs) throws SQLException {
            ResultColumns.Rows row = COLUMNS.in(rs);
            while (row.next()) {
                String kind = row.getString("kind");
                if (kind.equals("live-item-revision")) {
                    liveItemRevisions.add(key(row.getString("id"), row.getInt("revision")));
                } else {
                    current.computeIfAbsent(kind, k -> new HashMap<>())
                            .put(row.getString("id"), new CurrentRevision(row.getInt("revision"),
                                    row.getBoolean("deleted")));
                }
            }
        }
    }

    /**
     * What the cursor lock read (null: no open cursor row yet, nothing locked; otherwise still to be admitted by the
     * {@link WriteGate}) and the prefetch read after the lock.
     */
    record LockedPrefetch(CursorLock lock, Prefetched prefetched, Map<WriteKeys.Scoped, WriteKeys.Stored> keys) {
    }

    /** The parameters of a lock and prefetch that also looks up idempotency keys. */
    record KeyedLookup(Lookup lookup, List<IdempotencyKey> keys) {
    }

    /** The parameters of a write that also stores idempotency keys. */
    record KeyedWrite(Write write, List<WriteKeys.Remembered> remembered) {
    }

    /**
     * What {@link #lockThenWritePrepared} found: what the cursor lock read (null: no open cursor row; otherwise still
     * to be admitted by the {@link WriteGate}, before the commit) and whether it wrote.
     */
    record PreparedWrite(CursorLock lock, boolean written) {
    }

    /** Every row one physical transaction writes, of one stream; current rows at most one per aggregate. */
    record Rows(StreamId stream, List<ItemRow> items, List<MappingRow> mappings, List<PolicyRow> policies,
            List<ReleaseRow> releases, List<RevisionRow> revisions, List<OutboxRow> outbox) {
    }

    /**
     * An aggregate type whose current revision the prefetch reads: its table (named as the type), id column, what
     * is read, and the expression answering whether the revision is a deletion.
     */
    private record CurrentTable(String type, String idColumn, String read, String deleted) {
    }

    /** The parameters of one write statement: the rows and the cursor move. */
    record Write(Rows rows, Cursor from, Cursor to) {
    }

    /** The parameters of one prefetch: type -> ids to read the current revision of, and item revisions to check. */
    record Lookup(StreamId stream, Map<String, ? extends Collection<String>> idsByType,
            List<Change.ItemRef> refs) {

        String tenant() {
            return stream.tenant();
        }

        String catalog() {
            return stream.catalog();
        }

        String[] ids(String type) {
            Collection<String> ids = idsByType.get(type);
            return ids == null ? new String[0] : ids.toArray(String[]::new);
        }
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
