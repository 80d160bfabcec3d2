package com.acme.catalog.product.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.testsupport.TestDatabase;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Migration V28 re-partitions the generation tables by RANGE and adds the shared partitions: a database of the
 * earlier layout (LIST, one partition per generation) keeps every row, every dedicated partition with its indexes,
 * and the parents' keys and indexes.
 */
class RangePartitionMigrationIT {

    @Test
    void keepsEveryGenerationsRowsAndPartitions() throws Exception {
        try (TestDatabase db = TestDatabase.create("range_partition_migration")) {
            flyway(db, "17").migrate();
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("SET search_path TO product");
                s.execute("INSERT INTO generation (tenant, catalog, epoch, status) VALUES ('a', 'x', 1, 'SERVING'),"
                        + " ('a', 'y', 1, 'SERVING'), ('a', 'z', 1, 'RETIRED')");
                for (int g = 1; g <= 3; g++) {
                    s.execute("SELECT create_generation_partitions(" + g + ")");
                    s.execute("INSERT INTO item VALUES (" + g + ", 'sku-1', 1, '{\"name\":\"n" + g
                            + "\"}', false, 1, 1)");
                    s.execute("INSERT INTO held_event VALUES (" + g + ", 5, 'PARKED', '{}', 'd', gen_random_uuid(),"
                            + " 'ItemUpserted', 'item', 'sku-2', 1)");
                }
                s.execute("DELETE FROM item WHERE generation_id = 3"); // a retire: rows gone, partition left
            }

            flyway(db, "latest").migrate();

            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("SET search_path TO product");
                assertThat(strings(s, "SELECT generation_id || ':' || (attributes ->> 'name') FROM item"
                        + " ORDER BY generation_id")).containsExactly("1:n1", "2:n2");
                assertThat(strings(s, "SELECT count(*) FROM held_event WHERE state = 'PARKED'"
                        + " AND wait_id = 'sku-2'")).containsExactly("3");
                assertThat(strings(s, "SELECT pg_get_partkeydef('item'::regclass)"))
                        .containsExactly("RANGE (generation_id)");
                assertThat(strings(s, """
                        SELECT c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid)
                          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                         WHERE i.inhparent = 'item'::regclass ORDER BY c.relname""")).containsExactly(
                        "item_g1 FOR VALUES FROM ('1') TO ('2')", "item_g2 FOR VALUES FROM ('2') TO ('3')",
                        "item_g3 FOR VALUES FROM ('3') TO ('4')",
                        "item_shared FOR VALUES FROM ('1000000000000000') TO (MAXVALUE)");
                assertThat(strings(s, """
                        SELECT pi.relname FROM pg_index i JOIN pg_class pi ON pi.oid = i.indexrelid
                         WHERE i.indrelid = 'held_event'::regclass ORDER BY 1""")).containsExactly(
                        "held_event_pkey", "held_event_waiting");
                assertThat(strings(s, """
                        SELECT count(*) FROM pg_index i JOIN pg_inherits h ON h.inhrelid = i.indexrelid
                         WHERE i.indrelid = 'held_event_g2'::regclass""")).as("g2's indexes adopted, not rebuilt")
                        .containsExactly("2");
                assertThat(strings(s, "SELECT shared_generation_base()"))
                        .containsExactly(Long.toString(GenerationStorage.SHARED_BASE));
            }
        }
    }

    private static Flyway flyway(TestDatabase db, String target) {
        return Flyway.configure().dataSource(db.jdbcUrl(), db.username(), db.password())
                .locations("classpath:db/product").schemas("product").defaultSchema("product").target(target)
                .load();
    }

    private static List<String> strings(Statement s, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
