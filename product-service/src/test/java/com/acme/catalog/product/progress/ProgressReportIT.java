package com.acme.catalog.product.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.ProductApplication;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.FakeResolver.Report;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Progress reaches the resolver only after the delivery's transaction committed: every report carries at most the
 * position committed when it arrives, a rolled-back delivery reports nothing, and progress committed while the
 * resolver was unreachable is reported by the next process that starts on the same database.
 */
class ProgressReportIT extends ProductIT {

    @Autowired
    Environment environment;

    private final List<String> violations = new ArrayList<>();

    @BeforeEach
    void watchReports() {
        RESOLVER.reset();
        RESOLVER.onReport(this::checkCommitted);
    }

    @AfterEach
    void stopWatching() {
        RESOLVER.reset();
    }

    @Test
    void reportsFollowCommitsMonotonically() {
        StreamId s = new StreamId("acme", "progress");
        List<Event> chain = chain(s, 40);
        Random r = new Random(3);
        for (int i = 0; i < chain.size(); ) {
            int n = Math.min(chain.size() - i, 1 + r.nextInt(5));
            List<String> batch = new ArrayList<>();
            for (int k = i + n - 1; k >= i; k--) {
                batch.add(chain.get(k).delivered());
            }
            assertThat(deliver("r", batch).getStatusCode().value()).isEqualTo(200);
            i += n;
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> lastReported(s) == 40);

        List<Report> reports = RESOLVER.reports("acme", "progress");
        assertThat(reports).allSatisfy(report -> {
            assertThat(report.consumerId()).isEqualTo("product-test");
            assertThat(report.authorization()).isEqualTo("Bearer resolver-secret");
            assertThat(report.epoch()).isEqualTo(1);
        });
        List<Long> positions = reports.stream().map(Report::position).toList();
        assertThat(positions).isSorted();
        assertThat(violations).isEmpty();
    }

    @Test
    void aRolledBackDeliveryReportsNothing() throws Exception {
        StreamId s = new StreamId("acme", "rollback");
        List<Event> chain = chain(s, 3);
        assertThat(deliver("r", List.of(chain.get(0).delivered())).getStatusCode().value()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> lastReported(s) == 1);

        // position 2 is applied inside the transaction before position 3 breaks the chain and rolls it all back
        assertThat(deliver("r", List.of(chain.get(1).delivered(), chain.get(2).deliveredWithBadDigest()))
                .getStatusCode().value()).isEqualTo(422);
        Thread.sleep(500);

        assertThat(RESOLVER.reports("acme", "rollback")).extracting(Report::position).containsOnly(1L);
        assertThat(violations).isEmpty();
    }

    @Test
    void progressCommittedWhileTheResolverWasDownIsReportedAfterARestart() {
        StreamId s = new StreamId("acme", "restart");
        RESOLVER.failConsumer("product-test", 503);
        List<Event> chain = chain(s, 5);
        List<String> all = new ArrayList<>();
        chain.forEach(e -> all.add(e.delivered()));
        assertThat(deliver("r", all).getStatusCode().value()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> !RESOLVER.reports("acme", "restart").isEmpty());
        assertThat(RESOLVER.reports("acme", "restart")).allSatisfy(rep -> assertThat(rep.answered()).isEqualTo(503));

        // command-line arguments outrank application.yml: the restart must use this test's database, nothing else
        try (ConfigurableApplicationContext restarted = new SpringApplicationBuilder(ProductApplication.class).run(
                "--spring.datasource.url=" + environment.getRequiredProperty("spring.datasource.url"),
                "--spring.datasource.username=" + environment.getRequiredProperty("spring.datasource.username"),
                "--spring.datasource.password=" + environment.getProperty("spring.datasource.password", ""),
                "--server.port=0", "--product.resolver-url=" + RESOLVER.baseUrl(),
                "--product.consumer-id=product-restarted")) {
            assertThat(restarted.getEnvironment().getProperty("spring.datasource.url"))
                    .isEqualTo(environment.getProperty("spring.datasource.url"));
            await().atMost(Duration.ofSeconds(20)).until(() -> RESOLVER.reports("acme", "restart").stream()
                    .anyMatch(rep -> rep.consumerId().equals("product-restarted") && rep.answered() == 200
                            && rep.position() == 5));
        }
        assertThat(violations).isEmpty();
    }

    private long lastReported(StreamId s) {
        return RESOLVER.reports(s.tenant(), s.catalog()).stream().filter(r -> r.answered() == 200)
                .mapToLong(Report::position).max().orElse(-1);
    }

    /** Runs at receipt: a report may not name a position that is not committed yet. */
    private void checkCommitted(Report report) {
        long committed = jdbc.sql("""
                SELECT g.applied_position FROM serving_generation s JOIN generation g USING (generation_id)
                 WHERE s.tenant = ? AND s.catalog = ? AND g.epoch = ?
                """).params(report.tenant(), report.catalog(), report.epoch()).query(Long.class).optional()
                .orElse(-1L);
        if (report.position() > committed) {
            synchronized (violations) {
                violations.add(report + " arrived while only " + committed + " was committed");
            }
        }
    }

    private static List<Event> chain(StreamId s, int n) {
        CatalogHistory h = new CatalogHistory(new Random(n));
        return new ChainWriter(s, 1, new Random(n)).appendAll(h.random(n));
    }
}
