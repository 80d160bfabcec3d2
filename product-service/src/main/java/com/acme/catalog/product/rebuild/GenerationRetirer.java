package com.acme.catalog.product.rebuild;

import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Retires generations: marks them RETIRED, then detaches their partitions with {@code DETACH PARTITION …
 * CONCURRENTLY} (outside any transaction: it takes only SHARE UPDATE EXCLUSIVE on the parents, so other streams'
 * reads and writes go on) and drops the detached tables. Never retires a serving generation.
 */
@Component
class GenerationRetirer {

    private static final String SQL_MARK = """
            UPDATE generation SET status = 'RETIRED', updated_at = now()
             WHERE generation_id = ?
               AND NOT EXISTS (SELECT 1 FROM serving_generation s WHERE s.generation_id = ?)
            """;
    private static final String SQL_TABLES = "SELECT unnest(generation_tables())";
    private static final String SQL_ATTACHED = """
            SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                            WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace)
            """;
    private static final String SQL_EXISTS = "SELECT to_regclass(?) IS NOT NULL";
    private static final String SQL_BUILDING_OF = """
            SELECT generation_id FROM generation WHERE status = 'BUILDING' AND tenant = ? AND catalog = ?
            """;

    private final JdbcClient jdbc;

    GenerationRetirer(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return false when the generation serves (then nothing is changed) */
    boolean retire(long generationId) {
        if (jdbc.sql(SQL_MARK).params(generationId, generationId).update() != 1) {
            return false;
        }
        for (String table : jdbc.sql(SQL_TABLES).query(String.class).list()) {
            String part = table + "_g" + generationId;
            if (jdbc.sql(SQL_ATTACHED).params(part).query(Boolean.class).single()) {
                jdbc.sql("ALTER TABLE " + table + " DETACH PARTITION " + part + " CONCURRENTLY").update();
            }
            if (jdbc.sql(SQL_EXISTS).params(part).query(Boolean.class).single()) {
                jdbc.sql("DROP TABLE " + part).update();
            }
        }
        return true;
    }

    /** Retires the stream's BUILDING generations except {@code keep}: those of rebuilds no one runs any more. */
    List<Long> retireBuilding(com.acme.catalog.contracts.StreamId stream, java.util.Set<Long> keep) {
        List<Long> building = jdbc.sql(SQL_BUILDING_OF).params(stream.tenant(), stream.catalog()).query(Long.class)
                .list().stream().filter(g -> !keep.contains(g)).toList();
        building.forEach(this::retire);
        return building;
    }
}
