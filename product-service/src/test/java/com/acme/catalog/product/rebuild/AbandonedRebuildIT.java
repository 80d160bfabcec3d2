package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * After a crash mid-rebuild, the next start fails the unfinished rebuild and retires its BUILDING generation
 * (partitions detached and dropped), while the serving generation is untouched.
 */
class AbandonedRebuildIT extends ProductIT {

    @Autowired
    RebuildService service;

    @Test
    void aRebuildLeftRunningIsFailedAndItsShadowRetired() {
        long serving = generation("SERVING");
        jdbc.sql("INSERT INTO serving_generation (tenant, catalog, generation_id) VALUES ('acme', 'crash', ?)")
                .params(serving).update();
        long shadow = generation("BUILDING");
        jdbc.sql("""
                INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, generation_id)
                VALUES ('01900000-0000-7000-8000-0000000000aa', 'acme', 'crash', 'CATCHING_UP', ?)
                """).params(shadow).update();

        service.cleanUpAbandoned();

        assertThat(jdbc.sql("SELECT phase || ':' || error FROM rebuild").query(String.class).single())
                .isEqualTo("FAILED:the product stopped during CATCHING_UP");
        assertThat(status(shadow)).isEqualTo("RETIRED");
        assertThat(status(serving)).isEqualTo("SERVING");
        assertThat(partitions(shadow)).isZero();
        assertThat(partitions(serving)).isEqualTo(9);
        assertThat(service.latest(new com.acme.catalog.contracts.StreamId("acme", "crash")).orElseThrow().phase())
                .isEqualTo(RebuildPhase.FAILED);
    }

    private long generation(String status) {
        long g = jdbc.sql("""
                INSERT INTO generation (tenant, catalog, epoch, status) VALUES ('acme', 'crash', 1, ?)
                RETURNING generation_id
                """).params(status).query(Long.class).single();
        jdbc.sql("SELECT create_generation_partitions(?)").params(g).query().singleRow();
        return g;
    }

    private String status(long g) {
        return jdbc.sql("SELECT status FROM generation WHERE generation_id = ?").params(g).query(String.class)
                .single();
    }

    private long partitions(long g) {
        return jdbc.sql("SELECT count(*) FROM pg_class WHERE relname LIKE '%\\_g' || ?").params(g)
                .query(Long.class).single();
    }
}
