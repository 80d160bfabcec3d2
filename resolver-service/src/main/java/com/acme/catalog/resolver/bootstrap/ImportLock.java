package com.acme.catalog.resolver.bootstrap;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.zaxxer.hikari.HikariDataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The one-importer-per-stream lock: a session-level PostgreSQL advisory lock on a connection of its own, held from
 * before the emptiness check to the end of the import. A second importer of the same stream fails at once instead
 * of waiting. The import fence ({@link ImportFence}) names this session: if it dies, PostgreSQL releases the lock
 * and the fence ends with it; the chunks' cursor-position check still refuses to interleave with anyone else's
 * writes. {@code import_fence_held} (V34) knows the lock by its keys: change both together.
 */
final class ImportLock implements AutoCloseable {

    /** First key of the lock; the second is {@code hashtext('tenant/catalog')}. ASCII "BOOT". */
    static final int LOCK_CLASS = 0x424F4F54;

    private static final String SQL_TRY_LOCK = """
            SELECT pg_try_advisory_lock(?, hashtext(?)) AS locked, pg_backend_pid() AS pid
            """;
    private static final String SQL_UNLOCK = """
            SELECT pg_advisory_unlock(?, hashtext(?))
            """;

    private static final Logger log = LoggerFactory.getLogger(ImportLock.class);

    private final DataSource pool;
    private final Connection connection;
    private final JdbcClient jdbc;
    private final StreamId stream;
    private final int sessionPid;

    private ImportLock(DataSource pool, Connection connection, JdbcClient jdbc, StreamId stream, int sessionPid) {
        this.pool = pool;
        this.connection = connection;
        this.jdbc = jdbc;
        this.stream = stream;
        this.sessionPid = sessionPid;
    }

    /** @return the backend pid of the session holding the lock: the import fence names it (V34) */
    int sessionPid() {
        return sessionPid;
    }

    /**
     * @throws ApiException {@code IMPORT_IN_PROGRESS} when another session holds the stream's import lock
     */
    static ImportLock acquire(DataSource pool, StreamId stream) {
        Connection c;
        try {
            c = pool.getConnection();
            c.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException("no database connection for the import lock: " + e.getMessage(), e);
        }
        try {
            JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(c, true));
            int[] pid = new int[1];
            boolean locked = jdbc.sql(SQL_TRY_LOCK).params(LOCK_CLASS, stream.toString()).query((rs, n) -> {
                pid[0] = rs.getInt("pid");
                return rs.getBoolean("locked");
            }).single();
            if (!locked) {
                throw new ApiException(ProblemCode.IMPORT_IN_PROGRESS,
                        "another bootstrap import into " + stream + " is running (it holds the import lock)");
            }
            return new ImportLock(pool, c, jdbc, stream, pid[0]);
        } catch (RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            Boolean released = jdbc.sql(SQL_UNLOCK).params(LOCK_CLASS, stream.toString()).query(Boolean.class)
                    .single();
            if (!Boolean.TRUE.equals(released)) {
                log.warn("bootstrap import lock of {} was not held at the end of the import", stream);
            }
            closeQuietly(connection);
        } catch (RuntimeException e) {
            // A pooled connection must never go back still holding a session lock: drop it instead.
            log.warn("could not release the bootstrap import lock of {}; evicting its connection: {}", stream,
                    e.getMessage());
            evict();
        }
    }

    private void evict() {
        try {
            if (pool.isWrapperFor(HikariDataSource.class)) {
                pool.unwrap(HikariDataSource.class).evictConnection(connection);
                return;
            }
        } catch (SQLException e) {
            log.warn("could not evict the import lock connection: {}", e.getMessage());
        }
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing the import lock connection failed: {}", e.getMessage());
        }
    }
}
