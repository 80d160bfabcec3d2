package com.acme.catalog.resolver.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.ResultColumns;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The idempotency keys of cursor-locked writes (scope {@code write} of {@code idempotency_key}), read and written
 * only by a transaction that holds the stream's cursor lock: a key is looked up after the lock is granted (each
 * statement's snapshot under READ COMMITTED is taken when it starts, so it sees every write committed before the
 * lock) and stored by the transaction that commits its write. Both statements ride in round trips the write makes
 * anyway ({@link BatchWriteRepository}: the lookup after the lock and prefetch, the store after the write), so a
 * keyed write costs no extra round trip. So two writes with one key on one stream never both
 * miss it, whichever instance or coalesced group carries them.
 */
@Repository
class WriteKeys {

    static final String SCOPE = "write";

    private static final UnnestColumns<IdempotencyKey> KEY_COLUMNS = UnnestColumns.of(IdempotencyKey.class, "q")
            .text("identity", IdempotencyKey::identity)
            .text("idempotency_key", IdempotencyKey::value);

    private static final ResultColumns FOUND_COLUMNS = ResultColumns.of("identity", "idempotency_key",
            "request_sha256", "epoch", "first_position", "last_position", "transaction_id", "revision");

    /**
     * The stored keys among the looked-up ones; read its rows with {@link #readFound}. One primary-key probe per
     * looked-up key: the {@code OFFSET 0} keeps the planner from flattening the lateral subquery into a join, whose
     * generic plan, made on the empty table a resolver starts with and kept by the connection, reads every key of
     * the stream on every write ({@code WriteKeysPlanIT}).
     */
    static final BoundSql<Lookup> FIND = BoundSql.<Lookup>builder()
            .sql("""
                    SELECT q.identity, q.idempotency_key, k.request_sha256, k.epoch, k.first_position,
                           k.last_position, k.transaction_id, k.revision
                      FROM\s""")
            .unnest(Lookup::keys, KEY_COLUMNS)
            .sql("""

                     CROSS JOIN LATERAL (
                           SELECT request_sha256, epoch, first_position, last_position, transaction_id, revision
                             FROM idempotency_key
                            WHERE tenant = ? AND catalog = ? AND identity = q.identity AND scope = ?
                              AND idempotency_key = q.idempotency_key
                           OFFSET 0) k
                    """, l -> l.stream().tenant(), l -> l.stream().catalog(), l -> SCOPE)
            .build();

    private static final UnnestColumns<Remembered> REMEMBERED_COLUMNS = UnnestColumns.of(Remembered.class)
            .text("identity", r -> r.key().identity())
            .text("idempotency_key", r -> r.key().value())
            .text("request_sha256", r -> r.key().fingerprint())
            .uuids("transaction_id", r -> r.result().transactionId())
            .bigints("epoch", r -> r.result().epoch())
            .bigints("first_position", r -> r.result().firstPosition())
            .bigints("last_position", r -> r.result().lastPosition())
            .ints("revision", r -> r.result().revision());

    /** Stores keys with their writes' results. */
    static final BoundSql<Remember> REMEMBER = BoundSql.<Remember>builder()
            .sql("""
                    INSERT INTO idempotency_key (tenant, catalog, identity, scope, idempotency_key, request_sha256,
                                                 transaction_id, epoch, first_position, last_position, revision)
                    SELECT ?, ?, u.identity, ?, u.idempotency_key, u.request_sha256, u.transaction_id, u.epoch,
                           u.first_position, u.last_position, u.revision
                      FROM\s""", r -> r.stream().tenant(), r -> r.stream().catalog(), r -> SCOPE)
            .unnest(Remember::rows, REMEMBERED_COLUMNS)
            .build();

    private final JdbcClient jdbc;

    WriteKeys(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The stored keys among {@code keys}, by identity and key (caller holds the stream's cursor lock). The usual
     * write finds its keys in the round trip of the lock instead ({@link BatchWriteRepository#lockAndPrefetch}); this
     * is for a stream's first write, whose cursor row is created and locked afterwards.
     *
     * @return what each found key's write got and the fingerprint of its request
     */
    Map<Scoped, Stored> find(StreamId stream, List<IdempotencyKey> keys) {
        Map<Scoped, Stored> found = new HashMap<>();
        jdbc.sql(FIND.sql()).params(FIND.params(new Lookup(stream, keys))).query(rs -> {
            readFound(rs, found);
            return found;
        });
        return found;
    }

    /** Adds the rows of a {@link #FIND} result to {@code found}. */
    static void readFound(ResultSet rs, Map<Scoped, Stored> found) throws SQLException {
        ResultColumns.Rows row = FOUND_COLUMNS.in(rs);
        while (row.next()) {
            found.put(new Scoped(row.getString("identity"), row.getString("idempotency_key")),
                    new Stored(row.getString("request_sha256"), new WriteResult(row.getLong("epoch"),
                            row.getLong("first_position"), row.getLong("last_position"),
                            row.getObject("transaction_id", UUID.class), row.getInt("revision"))));
        }
    }

    /** A key as the table tells keys apart within one stream and scope. */
    record Scoped(String identity, String value) {

        static Scoped of(IdempotencyKey key) {
            return new Scoped(key.identity(), key.value());
        }
    }

    /** A stored key: its request's fingerprint and what its write got. */
    record Stored(String fingerprint, WriteResult result) {
    }

    /** A key to store and the result of its write. */
    record Remembered(IdempotencyKey key, WriteResult result) {
    }

    /** The parameters of {@link #FIND}. */
    record Lookup(StreamId stream, List<IdempotencyKey> keys) {
    }

    /** The parameters of {@link #REMEMBER}. */
    record Remember(StreamId stream, List<Remembered> rows) {
    }
}
