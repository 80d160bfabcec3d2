package com.acme.catalog.resolver.idempotency;

import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Idempotency keys of writes that take no cursor lock (review cases; decisions, which lock their case first), each
 * kind in a scope of its own. The write's transaction first claims its key by inserting it: a concurrent claim of the
 * same key waits on the primary key until the first transaction ends, then finds the key committed (its write
 * happened: answer what it stored) or absent (it rolled back: this claim inserts). The answer is stored before the
 * same transaction commits, so a committed key always has one.
 */
@Repository
public class KeyClaims {

    private static final String SQL_CLAIM = """
            INSERT INTO idempotency_key (tenant, catalog, identity, scope, idempotency_key, request_sha256)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """;
    private static final String SQL_FIND = """
            SELECT request_sha256, answer FROM idempotency_key
             WHERE tenant = ? AND catalog = ? AND identity = ? AND scope = ? AND idempotency_key = ?
            """;
    private static final String SQL_ANSWER = """
            UPDATE idempotency_key SET answer = ?
             WHERE tenant = ? AND catalog = ? AND identity = ? AND scope = ? AND idempotency_key = ?
            """;
    /** Claim attempts when a stored key vanishes between the claim and the read (pruned meanwhile). */
    private static final int ATTEMPTS = 3;

    private final JdbcClient jdbc;

    KeyClaims(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Claims {@code key} for the caller's open transaction, or finds the write that claimed it before.
     *
     * @return empty when this transaction now holds the key (do the write, then {@link #answer}); otherwise the
     *         stored answer of the earlier write of the same request (write nothing, answer it)
     * @throws com.acme.catalog.contracts.ApiException 422 {@code IDEMPOTENCY_KEY_REUSED} when the key was used for
     *                                                 another request
     */
    public Optional<String> claim(StreamId stream, String scope, IdempotencyKey key) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (jdbc.sql(SQL_CLAIM).params(stream.tenant(), stream.catalog(), key.identity(), scope, key.value(),
                    key.fingerprint()).update() == 1) {
                return Optional.empty();
            }
            Optional<Stored> stored = jdbc.sql(SQL_FIND)
                    .params(stream.tenant(), stream.catalog(), key.identity(), scope, key.value())
                    .query((rs, n) -> new Stored(rs.getString(1), rs.getString(2))).optional();
            if (stored.isPresent()) {
                if (!stored.get().fingerprint().equals(key.fingerprint())) {
                    throw key.reused();
                }
                return Optional.of(stored.get().answer());
            }
        }
        throw new IllegalStateException("idempotency key " + key.value() + " of " + stream
                + " neither claimed nor found in " + ATTEMPTS + " attempts");
    }

    /** Stores the answer of the write that claimed {@code key} (same transaction). */
    public void answer(StreamId stream, String scope, IdempotencyKey key, String answerJson) {
        int rows = jdbc.sql(SQL_ANSWER).params(answerJson, stream.tenant(), stream.catalog(), key.identity(), scope,
                key.value()).update();
        if (rows != 1) {
            throw new IllegalStateException("idempotency key " + key.value() + " of " + stream + " is not claimed");
        }
    }

    private record Stored(String fingerprint, String answer) {
    }
}
