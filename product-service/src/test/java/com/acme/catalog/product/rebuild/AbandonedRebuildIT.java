package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * After a crash mid-rebuild, the next holder of the stream's worker lease takes the unfinished rebuild over (here
 * it has retried for longer than its retry budget, so it is FAILED with {@code RETRY_BUDGET_EXHAUSTED}) and retires
 * its BUILDING generation (partitions detached and dropped), while the serving generation is untouched.
 */
class AbandonedRebuildIT extends ProductIT {

    @Autowired
    RebuildService service;
    @Autowired
    WorkerLeases leases;

    @Test
    void aRebuildLeftRunningIsFailedAndItsShadowRetired() {
        long serving = generation("SERVING");
        jdbc.sql("INSERT INTO serving_generation (tenant, catalog, generation_id) VALUES ('acme', 'crash', ?)")
                .params(serving).update();
        long shadow = generation("BUILDING");
        jdbc.sql("""
                INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, generation_id, attempt, worker_owner,
                                     worker_fence, retry_since)
                VALUES ('01900000-0000-7000-8000-0000000000aa', 'acme', 'crash', 'CATCHING_UP', ?, 3, 'gone', 1,
                        now() - interval '31 minutes')
                """).params(shadow).update();
        jdbc.sql("""
                INSERT INTO recovery_lease (tenant, catalog, owner, fence, acquired_at, renewed_at, expires_at)
                VALUES ('acme', 'crash', 'gone', 1, now(), now(), clock_timestamp() - interval '1 second')
                """).update();

        // the next holder of the stream's worker lease takes over what the stopped one left
        assertThat(leases.hold(new com.acme.catalog.contracts.StreamId("acme", "crash")).orElseThrow().fence())
                .isEqualTo(2);

        assertThat(jdbc.sql("SELECT phase || ':' || error_code || ':' || error FROM rebuild").query(String.class)
                .single()).startsWith("FAILED:RETRY_BUDGET_EXHAUSTED:RETRY_BUDGET_EXHAUSTED: gave up after 3 "
                        + "attempt(s), retried for PT31M").endsWith("the last failure was WORKER_STOPPED: the "
                        + "previous worker stopped during CATCHING_UP");
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
