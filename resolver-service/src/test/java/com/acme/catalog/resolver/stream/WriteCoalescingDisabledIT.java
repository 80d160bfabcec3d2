package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.resolver.support.ResolverIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/** With {@code resolver.write.coalescing.enabled=false} every write is its own physical transaction. */
@TestPropertySource(properties = "resolver.write.coalescing.enabled=false")
class WriteCoalescingDisabledIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    MeterRegistry registry;

    @Test
    void concurrentWritesCommitOneByOneAndFailuresStayTheirs() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<CompletableFuture<List<Response>>> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                threads.add(CompletableFuture.supplyAsync(() -> {
                    List<Response> out = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        out.add(put("/v1/streams/acme/solo/items/sku-" + thread + "-" + i, "w",
                                "{\"attributes\":{\"i\":" + i + "}}"));
                        if (i % 10 == 0) {
                            Response bad = put("/v1/streams/acme/solo/items/sku-" + thread + "-" + i, "w",
                                    "{\"attributes\":{},\"expectedRevision\":7}");
                            assertThat(bad.code()).isEqualTo("REVISION_CONFLICT");
                        }
                    }
                    return out;
                }, pool));
            }
            Set<String> ids = new HashSet<>();
            Set<Long> positions = new HashSet<>();
            for (CompletableFuture<List<Response>> f : threads) {
                for (Response r : f.get(2, TimeUnit.MINUTES)) {
                    assertThat(r.status()).as(r.raw()).isEqualTo(200);
                    assertThat(ids.add(r.text("transactionId"))).isTrue();
                    positions.add(r.number("position"));
                }
            }
            assertThat(positions).hasSize(100).allMatch(p -> p >= 1 && p <= 100);
            assertThat(jdbc.sql("SELECT count(*), max(position) FROM outbox WHERE tenant = 'acme' AND catalog = 'solo'")
                    .query((rs, n) -> List.of(rs.getLong(1), rs.getLong(2))).single()).containsExactly(100L, 100L);
            var coalesced = registry.find("resolver.write.coalesced.transactions").summary();
            assertThat(coalesced == null ? 0 : coalesced.count()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }
}
