package com.acme.catalog.resolver.epoch;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.EpochIssue;
import com.acme.catalog.contracts.epoch.StartsFrom;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.UnnestColumns;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.stereotype.Repository;

/**
 * The control store's statements: epochs (append-only history, the highest is current) and high-water marks (only
 * ever raised). Every method answers a store it cannot reach (or that times out) with 503
 * {@code CONTROL_STORE_UNAVAILABLE} ({@link ControlStore#unavailable}).
 */
@Repository
class EpochRepository {

    private static final String CURRENT_COLUMNS = """
            e.tenant, e.catalog, e.epoch, e.issued_at, coalesce(h.position, 0) AS high_water_mark,
            e.starts_from_epoch, e.starts_from_position, e.starts_from_digest
            """;
    private static final UnnestColumns<StreamId> STREAM_COLUMNS = UnnestColumns.of(StreamId.class)
            .text("tenant", StreamId::tenant)
            .text("catalog", StreamId::catalog);
    /** A stream's current epoch and the high-water mark recorded in it. */
    private static final BoundSql<StreamId> CURRENT = BoundSql.<StreamId>builder()
            .sql("SELECT ").sql(CURRENT_COLUMNS).sql("""
                      FROM stream_epoch e
                      LEFT JOIN stream_high_water_mark h
                             ON h.tenant = e.tenant AND h.catalog = e.catalog AND h.epoch = e.epoch
                     WHERE e.tenant = ? AND e.catalog = ?
                     ORDER BY e.epoch DESC
                     LIMIT 1
                    """, StreamId::tenant, StreamId::catalog).build();
    /** The current epoch and its high-water mark of each named stream, in one statement. */
    private static final BoundSql<Collection<StreamId>> CURRENT_OF = BoundSql.<Collection<StreamId>>builder()
            .sql("SELECT DISTINCT ON (e.tenant, e.catalog) ").sql(CURRENT_COLUMNS).sql("""
                      FROM\s""").unnest(s -> s, STREAM_COLUMNS).sql("""

                      JOIN stream_epoch e ON e.tenant = u.tenant AND e.catalog = u.catalog
                      LEFT JOIN stream_high_water_mark h
                             ON h.tenant = e.tenant AND h.catalog = e.catalog AND h.epoch = e.epoch
                     ORDER BY e.tenant, e.catalog, e.epoch DESC
                    """).build();
    /** Every stream's current epoch and high-water mark (the rollback check). */
    private static final BoundSql<Void> CURRENT_ALL = BoundSql.<Void>builder()
            .sql("SELECT DISTINCT ON (e.tenant, e.catalog) ").sql(CURRENT_COLUMNS).sql("""
                      FROM stream_epoch e
                      LEFT JOIN stream_high_water_mark h
                             ON h.tenant = e.tenant AND h.catalog = e.catalog AND h.epoch = e.epoch
                     ORDER BY e.tenant, e.catalog, e.epoch DESC
                    """).build();
    private static final String SQL_HISTORY = """
            SELECT epoch, issued_at, reason, issuer, starts_from_epoch, starts_from_position, starts_from_digest
              FROM stream_epoch
             WHERE tenant = ? AND catalog = ? ORDER BY epoch
            """;
    /** Every stream the store has an epoch of, or every stream of one tenant (a fleet rotation's scope). */
    private static final String SQL_KNOWN = """
            SELECT DISTINCT tenant, catalog FROM stream_epoch
             WHERE CAST(? AS text) IS NULL OR tenant = ?
            """;
    private static final UnnestColumns<Issue> ISSUE_COLUMNS = UnnestColumns.of(Issue.class)
            .text("tenant", i -> i.stream().tenant())
            .text("catalog", i -> i.stream().catalog())
            .bigints("epoch", Issue::epoch)
            .nullableBigints("from_epoch", i -> i.startsFrom() == null ? null : i.startsFrom().epoch())
            .nullableBigints("from_position", i -> i.startsFrom() == null ? null : i.startsFrom().position())
            .text("from_digest", i -> i.startsFrom() == null ? null : i.startsFrom().chainDigest());
    /**
     * Issues many epochs in one statement (all or none: the append-only trigger refuses the whole statement when
     * one of them is not above every epoch of its stream), each with where it starts and the job that issued it.
     */
    private static final BoundSql<IssueAll> ISSUE_ALL = BoundSql.<IssueAll>builder()
            .sql("""
                    INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer, starts_from_epoch,
                                              starts_from_position, starts_from_digest, rotation_id)
                    SELECT u.tenant, u.catalog, u.epoch, ?, ?, u.from_epoch, u.from_position, u.from_digest,
                           CAST(? AS uuid)
                      FROM\s""", IssueAll::reason, IssueAll::issuer, a -> a.rotationId() == null ? null
                    : a.rotationId().toString())
            .unnest(IssueAll::issues, ISSUE_COLUMNS)
            .build();
    /** The epochs a fleet rotation job already issued for the named streams. */
    private static final String SQL_ISSUED_BY = """
            SELECT e.tenant, e.catalog, e.epoch, e.starts_from_epoch, e.starts_from_position, e.starts_from_digest
              FROM unnest(?::text[], ?::text[]) AS q(tenant, catalog)
              JOIN stream_epoch e ON e.rotation_id = CAST(? AS uuid) AND e.tenant = q.tenant AND e.catalog = q.catalog
            """;
    /** The first epoch of a stream the store knows nothing about; does nothing when any epoch exists. */
    private static final String SQL_ISSUE_FIRST = """
            INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer)
            SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM stream_epoch WHERE tenant = ? AND catalog = ?)
            ON CONFLICT DO NOTHING
            """;
    /** Raises each named mark to its position; never lowers one. */
    private static final String SQL_RECORD_MARKS = """
            INSERT INTO stream_high_water_mark AS h (tenant, catalog, epoch, position)
            SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[])
            ON CONFLICT (tenant, catalog, epoch) DO UPDATE
               SET position = excluded.position, recorded_at = clock_timestamp()
             WHERE h.position < excluded.position
            """;
    private static final String SQL_PING = "SELECT 1";

    private final ControlStore store;

    EpochRepository(ControlStore store) {
        this.store = store;
    }

    /** @return the stream's current epoch; empty when the store has none for it */
    Optional<Current> current(StreamId s) {
        return reach(() -> store.jdbc().sql(CURRENT.sql()).params(CURRENT.params(s))
                .query(EpochRepository::current).optional());
    }

    /** @return the current epoch of each of {@code streams} the store knows */
    Map<StreamId, Current> currentOf(Collection<StreamId> streams) {
        return reach(() -> byStream(store.jdbc().sql(CURRENT_OF.sql()).params(CURRENT_OF.params(streams))
                .query(EpochRepository::current).list()));
    }

    /** @return every stream's current epoch */
    Map<StreamId, Current> currentAll() {
        return reach(() -> byStream(store.jdbc().sql(CURRENT_ALL.sql()).query(EpochRepository::current).list()));
    }

    /** @return every epoch issued for the stream, oldest first */
    List<EpochIssue> history(StreamId s) {
        return reach(() -> store.jdbc().sql(SQL_HISTORY).params(s.tenant(), s.catalog())
                .query((rs, n) -> new EpochIssue(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3),
                        rs.getString(4), startsFrom(rs))).list());
    }

    /** @return every stream the store has an epoch of ({@code tenant} null), or every stream of {@code tenant} */
    List<StreamId> known(String tenant) {
        return reach(() -> store.jdbc().sql(SQL_KNOWN).params(tenant, tenant)
                .query((rs, n) -> new StreamId(rs.getString(1), rs.getString(2))).list());
    }

    /** @return the epoch (and its start) that fleet rotation {@code rotationId} issued for each of {@code streams} */
    Map<StreamId, Issue> issuedBy(UUID rotationId, Collection<StreamId> streams) {
        String[] tenants = streams.stream().map(StreamId::tenant).toArray(String[]::new);
        String[] catalogs = streams.stream().map(StreamId::catalog).toArray(String[]::new);
        List<Issue> found = reach(() -> store.jdbc().sql(SQL_ISSUED_BY)
                .params(tenants, catalogs, rotationId.toString())
                .query((rs, n) -> new Issue(new StreamId(rs.getString("tenant"), rs.getString("catalog")),
                        rs.getLong("epoch"), startsFrom(rs))).list());
        Map<StreamId, Issue> out = new HashMap<>();
        found.forEach(i -> out.put(i.stream(), i));
        return out;
    }

    /** Issues {@code epoch} as the stream's first, unless it has one; either way answers what is current. */
    Current issueFirst(StreamId s, long epoch, String reason, String issuer) {
        try {
            reach(() -> store.jdbc().sql(SQL_ISSUE_FIRST).params(s.tenant(), s.catalog(), epoch, reason, issuer,
                    s.tenant(), s.catalog()).update());
        } catch (org.springframework.dao.DuplicateKeyException raced) {
            // two first uses at once: the other committed its first epoch after this one's NOT EXISTS looked, and
            // the append-only trigger (which runs before ON CONFLICT) refused this one; the other's is current
        }
        return current(s).orElseThrow(() -> new IllegalStateException("no epoch of " + s + " after issuing one"));
    }

    /**
     * Issues every epoch of {@code issues} in one statement, all or none; the store refuses an epoch that is not
     * above every one issued before for its stream.
     *
     * @param rotationId the fleet rotation issuing them; null for a single rotation or reset
     * @return false when the store refused (another rotation issued one of them, or a later one, first): then
     *         nothing was issued
     */
    boolean issueAll(List<Issue> issues, String reason, String issuer, UUID rotationId) {
        if (issues.isEmpty()) {
            return true;
        }
        IssueAll all = new IssueAll(issues, reason, issuer, rotationId);
        try {
            reach(() -> store.jdbc().sql(ISSUE_ALL.sql()).params(ISSUE_ALL.params(all)).update());
            return true;
        } catch (DuplicateKeyException taken) {
            store.reached();
            return false;
        }
    }

    /** Raises the high-water marks of (stream, epoch) pairs to the given positions, in one statement. */
    void recordMarks(List<Mark> marks) {
        int n = marks.size();
        String[] tenants = new String[n];
        String[] catalogs = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            Mark m = marks.get(i);
            tenants[i] = m.stream().tenant();
            catalogs[i] = m.stream().catalog();
            epochs[i] = m.epoch();
            positions[i] = m.position();
        }
        reach(() -> store.jdbc().sql(SQL_RECORD_MARKS).params(tenants, catalogs, epochs, positions).update());
    }

    /** One round trip to the store; throws when it cannot be reached. */
    void ping() {
        reach(() -> store.jdbc().sql(SQL_PING).query(Integer.class).single());
    }

    /** Runs one use of the store, answering an unreachable or timed-out store with 503. */
    private <T> T reach(java.util.function.Supplier<T> use) {
        try {
            T answer = use.get();
            store.reached();
            return answer;
        } catch (DataAccessResourceFailureException | TransientDataAccessException
                | RecoverableDataAccessException e) {
            store.failed(e);
            throw store.unavailable(e);
        }
    }

    private static Map<StreamId, Current> byStream(List<Current> rows) {
        Map<StreamId, Current> out = new HashMap<>();
        for (Current c : rows) {
            out.put(c.stream(), c);
        }
        return out;
    }

    private static Current current(ResultSet rs, int n) throws SQLException {
        return new Current(new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"),
                rs.getTimestamp("issued_at").toInstant(), rs.getLong("high_water_mark"), startsFrom(rs));
    }

    /** The recorded start of an epoch row ({@code starts_from_*}); null where none was recorded. */
    private static StartsFrom startsFrom(ResultSet rs) throws SQLException {
        long position = rs.getLong("starts_from_position");
        if (rs.wasNull()) {
            return null;
        }
        long epoch = rs.getLong("starts_from_epoch");
        boolean empty = rs.wasNull();
        return new StartsFrom(empty ? null : epoch, position, rs.getString("starts_from_digest"), empty);
    }

    /**
     * A stream's current epoch, when it was issued, the high-water mark recorded in it, and where it starts (null
     * where unknown).
     */
    record Current(StreamId stream, long epoch, java.time.Instant issuedAt, long highWaterMark,
            StartsFrom startsFrom) {
    }

    /** An epoch to issue (or issued) for a stream, and where it starts; {@code startsFrom} null where unknown. */
    record Issue(StreamId stream, long epoch, StartsFrom startsFrom) {
    }

    private record IssueAll(List<Issue> issues, String reason, String issuer, UUID rotationId) {
    }

    /** A committed position of a (stream, epoch), to be recorded. */
    record Mark(StreamId stream, long epoch, long position) {
    }
}
