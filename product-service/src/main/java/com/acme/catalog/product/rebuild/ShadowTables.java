package com.acme.catalog.product.rebuild;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.ProjectionVersion;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * A shadow generation's row and tables while it loads: the BUILDING row, its plain tables (created without
 * secondary indexes and not attached), the index builds over the loaded rows, and the partition swap that turns the
 * unique indexes into the parents' constraints, attaches the tables and sets the cursor. Each statement runs in
 * the caller's transaction.
 */
@Repository
class ShadowTables {

    private static final String SQL_INSERT_GENERATION = """
            INSERT INTO generation (tenant, catalog, epoch, status, projection_version) VALUES (?, ?, ?, 'BUILDING', ?)
            RETURNING generation_id
            """;
    /** Bulk work in a load transaction: the memory index builds sort in; no JIT compile for one-off statements. */
    private static final String SQL_SESSION = """
            SELECT set_config('maintenance_work_mem', ?, true), set_config('jit', 'off', true)
            """;
    private static final String SQL_CREATE_TABLE = "SELECT create_generation_table(?, ?)";
    private static final String SQL_BUILD_INDEXES = "SELECT build_generation_index_parts(?, ?)";
    private static final String SQL_ATTACH = "SELECT attach_generation_tables_using_indexes(?)";
    private static final String SQL_SET_CURSOR = """
            UPDATE generation
               SET start_position = ?, start_digest = ?, chain_position = ?, chain_digest = ?, applied_position = ?,
                   highest_seen_position = ?, updated_at = now()
             WHERE generation_id = ?
            """;
    private static final String SQL_TABLES = "SELECT unnest(generation_tables())";
    private static final String SQL_EXISTS = "SELECT to_regclass(?) IS NOT NULL";
    private static final String SQL_DELETE_GENERATION = "DELETE FROM generation WHERE generation_id = ?";

    private final JdbcClient jdbc;
    private final ProjectionVersion version;

    ShadowTables(JdbcClient jdbc, ProjectionVersion version) {
        this.jdbc = jdbc;
        this.version = version;
    }

    /**
     * @return the id of the stream's new BUILDING generation of {@code epoch}, recording this instance's projection
     *         version (the derivations it loads and applies with)
     */
    long insertGeneration(StreamId stream, long epoch) {
        return jdbc.sql(SQL_INSERT_GENERATION).params(stream.tenant(), stream.catalog(), epoch, version.current())
                .query(Long.class).single();
    }

    /** Sets the transaction's {@code maintenance_work_mem} and turns JIT off for it. */
    void bulkSession(String maintenanceWorkMem) {
        jdbc.sql(SQL_SESSION).params(maintenanceWorkMem).query().singleRow();
    }

    /** Creates generation {@code g}'s plain table of projection table {@code table} ({@code item_g<g>} …). */
    void createTable(long g, String table) {
        jdbc.sql(SQL_CREATE_TABLE).params(g, table).query().singleRow();
    }

    /** Builds on {@code table}'s plain table of generation {@code g} an index like each of the parent's. */
    void buildIndexes(long g, String table) {
        jdbc.sql(SQL_BUILD_INDEXES).params(g, table).query().singleRow();
    }

    /** Gives the planner the statistics of {@code table}'s plain table of generation {@code g}. */
    void analyze(long g, String table) {
        jdbc.sql("ANALYZE " + table + "_g" + g).update();
    }

    /**
     * The partition swap: turns generation {@code g}'s unique indexes into its constraints, attaches its tables to
     * the parents and sets its cursor to W with the chain digest there; the generation joins its parents when the
     * caller's transaction commits.
     */
    void attach(long g, long w, String chainDigest) {
        jdbc.sql(SQL_ATTACH).params(g).query().singleRow();
        jdbc.sql(SQL_SET_CURSOR).params(w, chainDigest, w, chainDigest, w, w, g).update();
    }

    /** Drops generation {@code g}'s plain tables and its row (a load that failed before its attach). */
    void drop(long g) {
        for (String table : jdbc.sql(SQL_TABLES).query(String.class).list()) {
            String part = table + "_g" + g;
            if (jdbc.sql(SQL_EXISTS).params(part).query(Boolean.class).single()) {
                jdbc.sql("DROP TABLE " + part).update();
            }
        }
        jdbc.sql(SQL_DELETE_GENERATION).params(g).update();
    }
}
