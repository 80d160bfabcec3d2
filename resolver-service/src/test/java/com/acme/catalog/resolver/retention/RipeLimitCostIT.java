package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The ripe limit reads the batches published within min-age, not the backlog below them: a pruner blocked for long
 * (a consumer that stopped) leaves one old batch per publish, and each status read or prune computes the limit.
 * Counted from the plan PostgreSQL ran, so it holds on any machine: rows the statement's nodes returned or filtered
 * out.
 */
class RipeLimitCostIT extends AbstractRetentionIT {

    private static final int OLD = 50_000;
    private static final int YOUNG = 100;

    @Test
    void theRipeLimitReadsTheYoungBatchesNotTheBacklog() {
        jdbc.sql("""
                INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
                SELECT 'acme', 'ripe-cost', 1, g * 10,
                       CASE WHEN g <= ? THEN now() - interval '2 days' + g * interval '1 second'
                            ELSE now() - interval '10 minutes' + (g - ?) * interval '1 second' END
                  FROM generate_series(1, ?) g
                """).params(OLD, OLD, OLD + YOUNG).update();
        jdbc.sql("ANALYZE outbox_publish").update();
        String sql = "SELECT " + RetainedOutboxRepository.RIPE_LIMIT.sql();
        Object[] params = RetainedOutboxRepository.RIPE_LIMIT.params(
                new RetainedOutboxRepository.Scope(new StreamId("acme", "ripe-cost"), 1, Duration.ofHours(1)));

        assertThat(jdbc.sql(sql).params(params).query(Long.class).single()).as("the newest old-enough batch")
                .isEqualTo(OLD * 10L);

        String plan = jdbc.sql("EXPLAIN (ANALYZE, FORMAT JSON) " + sql).params(params).query(String.class).single();
        List<Long> touched = new ArrayList<>();
        collect(json.readTree(plan).get(0).get("Plan"), touched);
        long rows = touched.stream().mapToLong(Long::longValue).sum();
        assertThat(rows).as("rows read or filtered, plan %s", plan).isLessThan(OLD / 10);
    }

    private static void collect(JsonNode node, List<Long> out) {
        out.add(node.path("Actual Rows").asLong() * Math.max(1, node.path("Actual Loops").asLong()));
        out.add(node.path("Rows Removed by Filter").asLong());
        out.add(node.path("Rows Removed by Index Recheck").asLong());
        for (JsonNode child : node.path("Plans")) {
            collect(child, out);
        }
    }
}
