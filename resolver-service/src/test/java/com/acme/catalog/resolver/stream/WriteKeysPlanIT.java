package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;

import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The key look-up's plan ({@link WriteKeys#FIND}) probes the primary key with all five of its columns, whatever the
 * table held when the plan was made. The write path runs it with {@code plan_cache_mode = force_generic_plan}, and a
 * connection keeps the plan it made first: a resolver starts with an empty {@code idempotency_key}, where a plan that
 * reads every key of the stream (index condition on tenant, catalog and scope only, the rest a join filter) looks
 * cheapest, and then kept reading them on every keyed write as the stream's keys grew (5.7 ms per write at 300 keyed
 * writes/s in the {@code propagation} bench, 2.2–2.5× the resolver database's CPU per event).
 */
class WriteKeysPlanIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    TransactionTemplate transactions;

    @Test
    void theKeyLookupProbesThePrimaryKeyEvenWhenPlannedOnAnEmptyTable() {
        String sql = WriteKeys.FIND.sql();
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            if (c == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(c);
            }
        }
        String types = String.join(", ", Collections.nCopies(n, "text"));
        String args = String.join(", ", Collections.nCopies(n, "'x'"));
        List<String> plan = transactions.execute(status -> {
            // an empty table of the same shape, in front of the real one for this transaction only
            jdbc.sql("CREATE TEMP TABLE idempotency_key (LIKE idempotency_key INCLUDING ALL) ON COMMIT DROP")
                    .update();
            jdbc.sql("SET LOCAL plan_cache_mode = force_generic_plan").update();
            jdbc.sql("PREPARE find_keys_plan (" + types + ") AS " + numbered).update();
            try {
                return jdbc.sql("EXPLAIN EXECUTE find_keys_plan (" + args + ")").query(String.class).list();
            } finally {
                jdbc.sql("DEALLOCATE find_keys_plan").update();
            }
        });
        String text = String.join("\n", plan);
        assertThat(text).as(text).contains("Index Cond").contains("identity = q.identity")
                .contains("idempotency_key = q.idempotency_key").doesNotContain("Join Filter")
                .doesNotContain("Seq Scan");
    }
}
