package com.acme.catalog.resolver.review;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Races of decisions: concurrent deciders of one case record exactly one decision (the others 409 CASE_DECIDED,
 * one DecisionRecorded event); an ACCEPT waits for the stream's cursor lock, while evidence intake, runs, cases and
 * a REJECT never take it.
 */
class DecisionConcurrencyIT extends EvidenceIT {

    @Autowired
    DataSource dataSource;

    @Test
    void concurrentDecidersOfOneCaseRecordOneDecision() throws Exception {
        StreamId s = new StreamId("acme", "race");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 10; round++) {
                UUID artifact = artifact("acme", "<p>race " + round + "</p>");
                UUID caseId = openCase(s, claims(s, artifact, "sku-" + round, Map.of("name", "r" + round)),
                        "[{\"op\":\"upsertItem\",\"itemId\":\"sku-" + round + "\",\"attributes\":{\"n\":" + round
                                + "}}]");
                CyclicBarrier start = new CyclicBarrier(4);
                List<Future<Response>> answers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    String verdict = t % 2 == 0 ? "ACCEPT" : "REJECT";
                    answers.add(pool.submit(() -> {
                        start.await();
                        return decide(s, caseId, verdict, List.of());
                    }));
                }
                List<Integer> statuses = new ArrayList<>();
                for (Future<Response> f : answers) {
                    Response r = f.get(60, TimeUnit.SECONDS);
                    statuses.add(r.status());
                    if (r.status() == 409) {
                        assertThat(r.code()).isEqualTo("CASE_DECIDED");
                    }
                }
                assertThat(statuses).as("round %d", round).containsExactlyInAnyOrder(201, 409, 409, 409);
                assertThat(jdbc.sql("SELECT count(*) FROM review_decision WHERE case_id = ?").params(caseId)
                        .query(Long.class).single()).isEqualTo(1);
                String verdict = jdbc.sql("SELECT decision FROM review_decision WHERE case_id = ?").params(caseId)
                        .query(String.class).single();
                long events = jdbc.sql("SELECT count(*) FROM outbox WHERE event_type = 'DecisionRecorded'"
                        + " AND wire LIKE ?").params("%" + caseId + "%").query(Long.class).single();
                assertThat(events).isEqualTo(verdict.equals("ACCEPT") ? 1 : 0);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void onlyAnAcceptWaitsForTheCursorLock() throws Exception {
        StreamId s = new StreamId("acme", "locked");
        put(stream(s) + "/items/seed", "w", Map.of("attributes", Map.of("n", 0)));
        UUID artifact = artifact("acme", "<p>locked</p>");
        List<UUID> claims = claims(s, artifact, "sku-1", Map.of("name", "x"));
        UUID toAccept = openCase(s, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{}}]");
        UUID toReject = openCase(s, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{}}]");
        CompletableFuture<Response> accept;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT * FROM stream_cursor FOR UPDATE");
            // everything but an ACCEPT finishes while the stream's cursor is locked
            Response again = intake("acme", "w", "<p>while locked</p>".getBytes(), "text/html");
            assertThat(again.status()).isEqualTo(201);
            List<UUID> more = claims(s, UUID.fromString(again.text("artifactId")), "sku-2", Map.of("name", "y"));
            openCase(s, more, "[{\"op\":\"deleteItem\",\"itemId\":\"seed\"}]");
            assertThat(decide(s, toReject, "REJECT", List.of()).status()).isEqualTo(201);
            accept = CompletableFuture.supplyAsync(() -> decide(s, toAccept, "ACCEPT", List.of()));
            Thread.sleep(500);
            assertThat(accept).as("the ACCEPT waits for the cursor lock").isNotDone();
            holder.rollback();
        }
        Response accepted = accept.get(30, TimeUnit.SECONDS);
        assertThat(accepted.status()).as(accepted.raw()).isEqualTo(201);
        assertThat(accepted.number("firstPosition")).isEqualTo(2);
    }
}
