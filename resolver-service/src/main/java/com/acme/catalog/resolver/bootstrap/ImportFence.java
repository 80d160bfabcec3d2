package com.acme.catalog.resolver.bootstrap;

import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.CursorRepository;
import com.acme.catalog.resolver.stream.WriteBlock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The import fence a running import holds on its stream (docs/bootstrap-import.md "The import fence"): set on the
 * open cursor row under its lock, naming the session of the import's {@link ImportLock} and a token of its own. From
 * the commit that sets it, every write that locks the row is refused (409 {@code IMPORT_IN_PROGRESS}, {@link
 * WriteBlock}) and the relay holds the stream, until {@link #close} clears it or the lock's session ends (then the
 * fence refuses nothing, whatever the row still says). The import's own chunks name the token in their transaction
 * ({@link #join}) and are admitted; a chunk of a fence that is gone is refused.
 */
final class ImportFence implements AutoCloseable {

    /**
     * A fence naming this very session under another token is one an earlier import on the same pooled session failed
     * to clear: it would refuse this import's own take.
     */
    private static final String SQL_CLEAR_STALE = """
            UPDATE stream_cursor SET import_pid = NULL, import_token = NULL, import_since = NULL, import_by = NULL
             WHERE tenant = ? AND catalog = ? AND import_pid = ?
            """;
    private static final String SQL_TAKE = """
            UPDATE stream_cursor SET import_pid = ?, import_token = ?, import_since = clock_timestamp(), import_by = ?
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
            """;
    /**
     * Clears the fence wherever it is (a reset carries it to the new epoch's row) and wakes the relay of that epoch,
     * which held the stream's events.
     */
    private static final String SQL_RELEASE = """
            WITH released AS (
                UPDATE stream_cursor SET import_pid = NULL, import_token = NULL, import_since = NULL, import_by = NULL
                 WHERE tenant = ? AND catalog = ? AND import_token = ?
                RETURNING tenant, catalog, epoch, fenced_at
            )
            SELECT pg_notify('outbox_committed', tenant || '/' || catalog || '/' || epoch) FROM released
             WHERE fenced_at IS NULL
            """;
    /** The first statement of each chunk transaction: the token the chunk writes under. */
    static final String SQL_JOIN = "SELECT set_config('" + WriteBlock.TOKEN_SETTING + "', ?, true)";
    /** {@link #SQL_JOIN} for a chunk that also commits without waiting for the WAL flush (empty destinations). */
    static final String SQL_JOIN_ASYNC = SQL_JOIN + ", set_config('synchronous_commit', 'off', true)";

    private static final Logger log = LoggerFactory.getLogger(ImportFence.class);

    private final JdbcClient jdbc;
    private final StreamId stream;
    private final UUID token;

    private ImportFence(JdbcClient jdbc, StreamId stream, UUID token) {
        this.jdbc = jdbc;
        this.stream = stream;
        this.token = token;
    }

    /**
     * Takes the fence in a transaction of its own: locks the stream's cursor row as a write does (opening the stream's
     * first epoch if it has none; a write holding the row finishes first) and sets the fence on it.
     *
     * @param sessionPid the backend pid of the session holding the stream's {@link ImportLock}
     * @param by         who imports, for {@code GET /v1/streams/{t}/{c}}
     * @throws com.acme.catalog.contracts.ApiException whatever a write of the stream would be refused with (maintenance,
     *         a fenced or rolled back epoch, a move), nothing written
     */
    static ImportFence take(TransactionTemplate tx, CursorRepository cursors, JdbcClient jdbc, StreamId stream,
            int sessionPid, String by) {
        UUID token = UUID.randomUUID();
        tx.executeWithoutResult(status -> {
            jdbc.sql(SQL_CLEAR_STALE).params(stream.tenant(), stream.catalog(), sessionPid).update();
            cursors.lockCursor(stream);
            jdbc.sql(SQL_TAKE).params(sessionPid, token, by, stream.tenant(), stream.catalog()).update();
        });
        return new ImportFence(jdbc, stream, token);
    }

    /**
     * Whether this fence is on the stream's open cursor row and its session still holds the import lock; read in the
     * caller's transaction, after the row is locked.
     */
    private static final String SQL_HELD = """
            SELECT coalesce((SELECT import_token = ? AND import_fence_held(import_pid, tenant, catalog)
                               FROM stream_cursor WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL), false)
            """;

    /**
     * Throws unless this fence holds the stream (the reset's check, inside its transaction once the cursor is
     * locked: a fence lost meanwhile resets nothing).
     *
     * @throws ApiException 503 {@code DATABASE_UNAVAILABLE} when the fence is gone
     */
    void requireHeld() {
        if (!jdbc.sql(SQL_HELD).params(token, stream.tenant(), stream.catalog()).query(Boolean.class).single()) {
            throw new ApiException(ProblemCode.DATABASE_UNAVAILABLE, "the import fence of " + stream + " is gone "
                    + "(its lock session ended): nothing was reset; run the import again");
        }
    }

    /** The token a chunk transaction names with {@link #SQL_JOIN}. */
    String token() {
        return token.toString();
    }

    /**
     * Names the fence in the caller's open transaction: its writes of the stream are the import's.
     *
     * @param synchronousCommitOff also {@code SET LOCAL synchronous_commit = off}, in the same statement
     */
    void join(boolean synchronousCommitOff) {
        jdbc.sql(synchronousCommitOff ? SQL_JOIN_ASYNC : SQL_JOIN).param(token()).query().listOfRows();
    }

    /**
     * Clears the fence: writes and the relay of the stream go on. A failure is logged: the fence then ends with the
     * lock's session, which {@link ImportLock#close} ends when it cannot unlock.
     */
    @Override
    public void close() {
        try {
            jdbc.sql(SQL_RELEASE).params(stream.tenant(), stream.catalog(), token).query().listOfRows();
        } catch (RuntimeException e) {
            log.warn("could not clear the import fence of {} (it ends with the import lock's session): {}", stream,
                    e.getMessage());
        }
    }
}
