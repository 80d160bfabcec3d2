package com.acme.catalog.product.projection;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.platform.sql.BoundSql;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Generations, their cursors and the serving pointer. The live applier locks a stream's pointer and its serving
 * generation's cursor row for the length of a delivery batch; a rebuild locks its shadow generation's row only.
 */
@Repository
public class GenerationRepository {

    /** The columns of a {@link GenerationCursor}, read by {@link #cursor}, for each statement that answers one. */
    private static final String SELECT_CURSOR = """
            SELECT g.generation_id, g.tenant, g.catalog, g.epoch, g.chain_position, g.chain_digest,
                   g.applied_position, g.highest_seen_position, g.projection_version
            """;
    private static final BoundSql<StreamId> LOCK_SERVING = BoundSql.<StreamId>builder().sql(SELECT_CURSOR).sql("""
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE s.tenant = ? AND s.catalog = ?
               FOR UPDATE
            """, StreamId::tenant, StreamId::catalog).build();
    private static final BoundSql<StreamId> SERVING = BoundSql.<StreamId>builder().sql(SELECT_CURSOR).sql("""
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE s.tenant = ? AND s.catalog = ?
            """, StreamId::tenant, StreamId::catalog).build();
    private static final BoundSql<Long> LOCK_GENERATION = BoundSql.<Long>builder().sql(SELECT_CURSOR).sql("""
              FROM generation g WHERE g.generation_id = ? FOR UPDATE
            """, id -> id).build();
    private static final BoundSql<Void> SERVING_CURSORS = BoundSql.<Void>builder().sql(SELECT_CURSOR).sql("""
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             ORDER BY g.tenant, g.catalog
            """).build();
    private static final String SQL_STREAM_START_LOCK = """
            SELECT pg_advisory_xact_lock(hashtextextended('product.stream-start:' || ? || '/' || ?, 0))
            """;
    /** A shared generation: an id of the shared range, rows in the shared partitions; no DDL (GenerationStorage). */
    private static final String SQL_INSERT_SHARED_GENERATION = """
            INSERT INTO generation (generation_id, tenant, catalog, epoch, status, projection_version)
            OVERRIDING SYSTEM VALUE
            VALUES (nextval('shared_generation_id'), ?, ?, ?, 'SERVING', ?) RETURNING generation_id
            """;
    private static final String SQL_INSERT_POINTER = """
            INSERT INTO serving_generation (tenant, catalog, generation_id) VALUES (?, ?, ?)
            """;
    private static final String SQL_SERVING_VERSION = """
            SELECT g.projection_version
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE s.tenant = ? AND s.catalog = ?
            """;
    private static final String SQL_NEWEST_BUILDING_VERSION = """
            SELECT coalesce(max(projection_version), 0) FROM generation WHERE tenant = ? AND catalog = ? AND status = 'BUILDING'
            """;
    private static final String SQL_SERVED_BELOW = """
            SELECT g.tenant, g.catalog
              FROM serving_generation s JOIN generation g ON g.generation_id = s.generation_id
             WHERE g.projection_version < ?
             ORDER BY g.tenant, g.catalog
            """;
    private static final String SQL_SAVE_CURSOR = """
            UPDATE generation
               SET chain_position = ?, chain_digest = ?, applied_position = ?, highest_seen_position = ?,
                   updated_at = now()
             WHERE generation_id = ?
            """;

    private final JdbcClient jdbc;
    private final MaintenanceSwitch maintenance;
    private final ProjectionVersion version;

    public GenerationRepository(JdbcClient jdbc, MaintenanceSwitch maintenance, ProjectionVersion version) {
        this.jdbc = jdbc;
        this.maintenance = maintenance;
        this.version = version;
    }

    /** @return the projection version this instance builds and applies with */
    public ProjectionVersion version() {
        return version;
    }

    /**
     * Locks the stream's serving pointer and its generation's cursor until the surrounding transaction ends. First
     * takes the maintenance hold: every change to what a stream serves (live deliveries, the recovery worker's
     * catch-up pages, a rebuild's cutover) goes through this lock, so maintenance pauses them all, and the switch
     * waits for the ones in flight (docs/epochs.md).
     *
     * <p>An instance never writes into a generation built by a newer projection version with its older derivations
     * (docs/runbooks/projection-upgrade.md): the serving generation of a newer version is refused, 503
     * {@code PROJECTION_VERSION_NEWER}, which the relay retries and the recovery worker does not attempt.
     *
     * @return the serving generation's cursor; empty when the stream has no serving generation
     * @throws com.acme.catalog.contracts.ApiException 503 {@code MAINTENANCE} while the product is in maintenance;
     *         503 {@code PROJECTION_VERSION_NEWER} when the serving generation is of a newer projection version
     */
    public Optional<GenerationCursor> lockServing(StreamId stream) {
        return lockServing(stream, false);
    }

    /**
     * {@link #lockServing(StreamId)}; with {@code anyVersion} a serving generation of a newer projection version is
     * locked too (the cutover of a rebuild an operator started with the explicit override: it replaces the
     * generation and writes nothing into it).
     */
    public Optional<GenerationCursor> lockServing(StreamId stream, boolean anyVersion) {
        requireTransaction();
        maintenance.requireOff("applying events to what " + stream + " serves");
        Optional<GenerationCursor> c = jdbc.sql(LOCK_SERVING.sql()).params(LOCK_SERVING.params(stream))
                .query(GenerationRepository::cursor).optional();
        if (c.isPresent() && !anyVersion && version.isOlderThan(c.get().projectionVersion())) {
            throw new ApiException(ProblemCode.PROJECTION_VERSION_NEWER, stream + " is served by a generation of "
                    + "projection version " + c.get().projectionVersion() + ", newer than this instance's version "
                    + version.current() + ": it does not write into it with its older derivations; retry, an "
                    + "instance of the newer version applies it");
        }
        return c;
    }

    /** @return the projection version of the stream's serving generation, as the current snapshot sees it */
    public Optional<Integer> servingVersion(StreamId stream) {
        return jdbc.sql(SQL_SERVING_VERSION).params(stream.tenant(), stream.catalog()).query(Integer.class)
                .optional();
    }

    /** @return the newest projection version among the stream's BUILDING generations; empty without one */
    public Optional<Integer> newestBuildingVersion(StreamId stream) {
        int v = jdbc.sql(SQL_NEWEST_BUILDING_VERSION).params(stream.tenant(), stream.catalog()).query(Integer.class)
                .single();
        return v == 0 ? Optional.empty() : Optional.of(v);
    }

    /** @return the streams whose serving generation was built by a projection version older than this instance's */
    public List<StreamId> servedBelowCurrentVersion() {
        return jdbc.sql(SQL_SERVED_BELOW).params(version.current())
                .query((rs, n) -> new StreamId(rs.getString("tenant"), rs.getString("catalog"))).list();
    }

    /** @return the serving generation's cursor as the current snapshot sees it, without locking */
    public Optional<GenerationCursor> serving(StreamId stream) {
        return jdbc.sql(SERVING.sql()).params(SERVING.params(stream)).query(GenerationRepository::cursor)
                .optional();
    }

    /** Locks one generation's cursor row (a shadow generation during catch-up) until the transaction ends. */
    public Optional<GenerationCursor> lockGeneration(long generationId) {
        requireTransaction();
        return jdbc.sql(LOCK_GENERATION.sql()).params(LOCK_GENERATION.params(generationId))
                .query(GenerationRepository::cursor).optional();
    }

    /**
     * Creates an empty generation at position 0 of {@code epoch} and makes it the stream's serving generation,
     * unless another transaction did so first; either way the returned cursor is locked. The generation is shared
     * ({@link GenerationStorage}): its rows go to the shared partitions, so opening a stream is two INSERTs and takes
     * no lock on the partitioned parents (creating nine partitions was ~200 ms of DDL, one stream at a time).
     */
    public GenerationCursor startServingEmpty(StreamId stream, long epoch) {
        requireTransaction();
        jdbc.sql(SQL_STREAM_START_LOCK).params(stream.tenant(), stream.catalog()).query().singleRow();
        Optional<GenerationCursor> raced = lockServing(stream);
        if (raced.isPresent()) {
            return raced.get();
        }
        long id = jdbc.sql(SQL_INSERT_SHARED_GENERATION).params(stream.tenant(), stream.catalog(), epoch,
                version.current()).query(Long.class).single();
        jdbc.sql(SQL_INSERT_POINTER).params(stream.tenant(), stream.catalog(), id).update();
        return lockServing(stream).orElseThrow();
    }

    /** Stores a cursor the caller advanced under the lock taken by {@link #lockServing} or {@link #lockGeneration}. */
    public void saveCursor(GenerationCursor c) {
        int rows = jdbc.sql(SQL_SAVE_CURSOR).params(c.chainPosition(), c.chainDigest(), c.appliedPosition(),
                c.highestSeenPosition(), c.generationId()).update();
        if (rows != 1) {
            throw new IllegalStateException("generation " + c.generationId() + " vanished while locked");
        }
    }

    /** The committed cursor of every stream's serving generation. */
    public List<GenerationCursor> servingCursors() {
        return jdbc.sql(SERVING_CURSORS.sql()).query(GenerationRepository::cursor).list();
    }

    private static GenerationCursor cursor(ResultSet rs, int row) throws SQLException {
        return new GenerationCursor(rs.getLong("generation_id"),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"),
                rs.getLong("chain_position"), rs.getString("chain_digest"), rs.getLong("applied_position"),
                rs.getLong("highest_seen_position"), rs.getInt("projection_version"));
    }

    private static void requireTransaction() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("cursor locks need an open transaction");
        }
    }
}
