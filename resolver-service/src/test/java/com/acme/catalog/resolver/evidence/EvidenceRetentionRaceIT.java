package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * Evidence retention against a concurrent ACCEPT that cites an idle, otherwise unreferenced artifact as further
 * evidence: whichever commits first, a cited artifact is never expired (the ACCEPT that loses is refused with
 * {@code EVIDENCE_EXPIRED} and writes nothing). The guard is the artifact's row lock: retention locks it FOR UPDATE
 * and decides again under it, the decision share-locks it. Without retention's lock this fails. The same holds for an
 * intake of the same bytes, whose dedupe updates the artifact row: it answers either the artifact, kept with its
 * activity refreshed, or a new one.
 */
@TestPropertySource(properties = {"evidence.retention.window=PT1H", "evidence.retention.check-objects=false"})
class EvidenceRetentionRaceIT extends EvidenceIT {

    private static final int ROUNDS = 40;

    @Test
    void retentionNeverExpiresAnArtifactAConcurrentAcceptCites() throws Exception {
        StreamId s = new StreamId("race", "shoes");
        UUID base = artifact("race", "<p>the product page</p>");
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        int accepted = 0;
        int refused = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                UUID evidence = artifact("race", "<p>screenshot " + round + "</p>");
                idle(evidence, Duration.ofHours(2));
                UUID caseId = openCase(s, claims(s, base, "sku-" + round, Map.of("name", "n" + round)),
                        "[{\"op\":\"upsertItem\",\"itemId\":\"sku-" + round + "\",\"attributes\":{\"r\":" + round
                                + "}}]");
                int delayMillis = random.nextInt(12);
                CyclicBarrier start = new CyclicBarrier(2);
                CompletableFuture<Response> decision = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    sleep(delayMillis);
                    return decide(s, caseId, "ACCEPT", List.of(evidence));
                }, pool);
                CompletableFuture<Response> retention = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    return post("/v1/evidence-retention/run?tenant=race", "op", null);
                }, pool);
                Response d = decision.get(60, TimeUnit.SECONDS);
                Response r = retention.get(60, TimeUnit.SECONDS);
                assertThat(r.status()).as(r.raw()).isEqualTo(200);
                assertThat(r.text("outcome")).as(r.raw()).isEqualTo("COMPLETED");
                boolean expired = jdbc.sql("SELECT expired_at IS NOT NULL FROM evidence_artifact WHERE artifact_id = ?")
                        .params(evidence).query(Boolean.class).single();
                long citations = jdbc.sql("SELECT count(*) FROM decision_citation WHERE artifact_id = ?")
                        .params(evidence).query(Long.class).single();
                String where = "seed %d round %d delay %d ms: decision %s, retention %s".formatted(seed, round,
                        delayMillis, d.raw(), r.raw());
                if (d.status() == 201) {
                    accepted++;
                    assertThat(citations).as(where).isEqualTo(1);
                    assertThat(expired).as("a cited artifact expired: " + where).isFalse();
                    assertThat(store.exists("evidence/race/" + evidence)).as(where).isTrue();
                } else {
                    refused++;
                    assertThat(d.code()).as(where).isEqualTo("EVIDENCE_EXPIRED");
                    assertThat(expired).as(where).isTrue();
                    assertThat(citations).as(where).isZero();
                    assertThat(jdbc.sql("SELECT count(*) FROM review_decision WHERE case_id = ?").params(caseId)
                            .query(Long.class).single()).as(where).isZero();
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(jdbc.sql("""
                SELECT count(*) FROM decision_citation dc JOIN evidence_artifact a ON a.artifact_id = dc.artifact_id
                 WHERE a.expired_at IS NOT NULL
                """).query(Long.class).single()).as("no decision cites an expired artifact").isZero();
        System.out.printf("retention race: %d ACCEPTs kept their evidence, %d were refused after its expiry%n",
                accepted, refused);
    }

    @Test
    void anIntakeOfTheSameBytesRacingTheirExpiryNeverAnswersAnExpiredArtifact() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 30; round++) {
                byte[] bytes = ("<p>sent twice " + round + "</p>").getBytes();
                UUID first = UUID.fromString(intake("resend", "w", bytes, "text/html").text("artifactId"));
                idle(first, Duration.ofHours(2));
                int delayMillis = random.nextInt(12);
                CyclicBarrier start = new CyclicBarrier(2);
                CompletableFuture<Response> again = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    sleep(delayMillis);
                    try {
                        return intake("resend", "w", bytes, "text/html");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool);
                CompletableFuture<Response> retention = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    return post("/v1/evidence-retention/run?tenant=resend", "op", null);
                }, pool);
                Response r = again.get(60, TimeUnit.SECONDS);
                assertThat(retention.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
                UUID answered = UUID.fromString(r.text("artifactId"));
                String where = "seed %d round %d delay %d ms: %s".formatted(seed, round, delayMillis, r.raw());
                assertThat(r.status()).as(where).isEqualTo(answered.equals(first) ? 200 : 201);
                assertThat(jdbc.sql("SELECT expired_at IS NULL FROM evidence_artifact WHERE artifact_id = ?")
                        .params(answered).query(Boolean.class).single()).as("answered a live artifact: " + where)
                        .isTrue();
                assertThat(store.exists("evidence/resend/" + answered)).as(where).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
