package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpMethod;

/**
 * The import fence against real writers: while an import holds it, every write of the stream (item, mapping, policy
 * and release writes, transactions, deletions, keyed writes and their retries, review decisions) answers 409
 * {@code IMPORT_IN_PROGRESS} with nothing written, the import completes, and nothing interleaves; other streams are
 * written meanwhile. The fence shows in {@code GET /v1/streams/{t}/{c}} and ends with the importer's session.
 */
class ImportFenceIT extends EvidenceIT {

    @Autowired
    BootstrapImporter importer;

    @TempDir
    Path dir;

    @Test
    void writersHammeringTheStreamDuringA50kImportAreAllRefusedAndTheImportCompletes() throws Exception {
        StreamId stream = new StreamId("acme", "fence-hammer");
        String base = "/v1/streams/acme/fence-hammer";
        // a review case opened before the import (cases are not accepted state: the stream stays empty)
        UUID artifact = artifact("acme", "<html>price 12</html>");
        List<UUID> claims = claims(stream, artifact, "rv-1", Map.of("price", 12));
        UUID accept = openCase(stream, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"rv-1\",\"attributes\":{}}]");
        UUID reject = openCase(stream, claims, "[{\"op\":\"upsertItem\",\"itemId\":\"rv-2\",\"attributes\":{}}]");
        Path file = dir.resolve("events.json");
        SnapshotEventsGenerator.write(file, 50_000, 31);

        CountDownLatch fenced = new CountDownLatch(1);
        CountDownLatch midway = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        AtomicBoolean importing = new AtomicBoolean(true);
        CompletableFuture<ImportReport> running = CompletableFuture.supplyAsync(() -> {
            try {
                return importer.importFile(stream, file, ImportOptions.defaults().withSynchronousCommitOff(true),
                        new ImportListener() {
                            @Override
                            public void fenced() {
                                fenced.countDown();
                            }

                            @Override
                            public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
                                if (chunk == 250) {
                                    midway.countDown();
                                    await(checked);
                                }
                            }
                        });
            } finally {
                importing.set(false);
            }
        });
        assertThat(fenced.await(120, TimeUnit.SECONDS)).as("the import took its fence").isTrue();

        Response status = get(base, "op");
        assertThat(status.status()).as(status.raw()).isEqualTo(200);
        assertThat(status.body().path("importFence").path("by").stringValue()).isEqualTo("resolver");
        assertThat(status.body().path("importFence").path("sessionPid").asInt()).isPositive();
        assertThat(status.body().path("move").isNull()).isTrue();

        Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
        List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger other = new AtomicInteger();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Void>> hammers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            hammers.add(CompletableFuture.runAsync(() -> {
                int i = 0;
                while (importing.get()) {
                    String key = "k-" + writer + "-" + i;
                    Response r = switch (i++ % 7) {
                        case 0 -> put(base + "/items/hammer-" + writer, "w", Map.of("attributes", Map.of("i", i)));
                        case 1 -> put(base + "/mappings/m-" + writer, "w", Map.of("source", "s", "target", "t"));
                        case 2 -> put(base + "/policies/p-" + writer, "w", Map.of("rules", Map.of("i", i)));
                        case 3 -> put(base + "/releases/r-" + writer, "w", Map.of("visibility", "PUBLIC",
                                "items", List.of()));
                        case 4 -> post(base + "/transactions", "w", Map.of("changes", List.of(
                                Map.of("op", "upsertItem", "itemId", "tx-" + writer, "attributes", Map.of()))));
                        case 5 -> delete(base + "/items/sku-1", "w");
                        default -> keyed(base + "/items/keyed-" + writer, key);
                    };
                    answers.computeIfAbsent(r.status() + " " + r.code(), k -> new AtomicInteger()).incrementAndGet();
                    // a write sent as the import ended may pass once the fence is cleared: after every imported
                    // event, never between them (or a deletion of an item the file deleted: admitted, then 404)
                    long at = Math.max(r.number("position"), r.number("lastPosition"));
                    boolean afterTheImport = r.status() == 200 && at > 50_000
                            || r.status() == 404 && "NOT_FOUND".equals(r.code());
                    if (!afterTheImport && (r.status() != 409 || !"IMPORT_IN_PROGRESS".equals(r.code()))) {
                        unexpected.add(r.status() + " " + r.raw());
                    }
                    // another stream is not held by this import
                    if (i % 10 == 0) {
                        Response elsewhere = put("/v1/streams/acme/fence-other/items/o-" + writer, "w",
                                Map.of("attributes", Map.of("i", i)));
                        if (elsewhere.status() == 200) {
                            other.incrementAndGet();
                        } else {
                            unexpected.add("other stream: " + elsewhere.raw());
                        }
                    }
                }
            }, writers));
        }
        // decisions and a keyed retry while the import holds its fence midway
        assertThat(midway.await(300, TimeUnit.SECONDS))
                .as("the import reached its middle (it stops early when a writer gets in)").isTrue();
        Response accepted = decide(stream, accept, "ACCEPT", List.of());
        Response rejected = decide(stream, reject, "REJECT", List.of());
        Response keyedOnce = keyed(base + "/items/keyed-retry", "retry-key");
        Response keyedAgain = keyed(base + "/items/keyed-retry", "retry-key");
        checked.countDown();

        ImportReport report = running.get(600, TimeUnit.SECONDS);
        CompletableFuture.allOf(hammers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        writers.shutdown();

        assertThat(report.status()).isEqualTo(ImportReport.Status.COMPLETED);
        assertThat(report.committedEvents()).isEqualTo(50_000);
        assertThat(unexpected).as("answers %s", new TreeMap<>(answers)).isEmpty();
        int refused = answers.getOrDefault("409 IMPORT_IN_PROGRESS", new AtomicInteger()).get();
        assertThat(refused).as("writes refused during the import").isGreaterThan(50);
        assertThat(other.get()).as("writes of another stream during the import").isPositive();
        for (Response r : List.of(accepted, rejected, keyedOnce, keyedAgain)) {
            assertThat(r.status()).as(r.raw()).isEqualTo(409);
            assertThat(r.code()).isEqualTo("IMPORT_IN_PROGRESS");
            assertThat(r.text("since")).isNotNull();
        }
        // nothing interleaved: positions 1..50000 are the file's events, nothing of the writers among them
        assertThat(jdbc.sql("""
                SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = 'fence-hammer'
                   AND position <= 50000
                   AND (aggregate_id LIKE 'hammer-%' OR aggregate_id LIKE 'keyed-%' OR aggregate_id LIKE 'tx-%'
                        OR aggregate_id LIKE 'rv-%' OR aggregate_id LIKE 'm-_' OR aggregate_id LIKE 'p-_'
                        OR aggregate_id LIKE 'r-_')
                """).query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'fence-hammer' AND "
                + "position <= 50000 AND transaction_count = 1").query(Long.class).single()).isEqualTo(50_000);
        assertThat(jdbc.sql("SELECT count(*) FROM review_decision WHERE case_id IN (?, ?)").params(accept, reject)
                .query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM idempotency_key WHERE tenant = 'acme' AND catalog = "
                + "'fence-hammer' AND idempotency_key = 'retry-key'").query(Long.class).single()).isZero();

        // the fence is gone with the import: writes, decisions and the refused keyed write go through now
        assertThat(get(base, "op").body().path("importFence").isNull()).isTrue();
        Response after = keyed(base + "/items/keyed-retry", "retry-key");
        assertThat(after.status()).as(after.raw()).isEqualTo(200);
        assertThat(after.number("revision")).as("a fresh write: the refused ones stored nothing").isEqualTo(1);
        assertThat(decide(stream, reject, "REJECT", List.of()).status()).isEqualTo(201);
    }

    @Test
    void theFenceEndsWithTheImportersSession() throws Exception {
        StreamId stream = new StreamId("acme", "fence-session");
        String base = "/v1/streams/acme/fence-session";
        Path file = dir.resolve("events.json");
        SnapshotEventsGenerator.write(file, 3_000, 5);
        CountDownLatch atChunk = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        CompletableFuture<ImportReport> running = CompletableFuture.supplyAsync(() -> importer.importFile(stream,
                file, ImportOptions.defaults().withSynchronousCommitOff(true), new ImportListener() {
                    @Override
                    public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
                        if (chunk == 3) {
                            atChunk.countDown();
                            await(resume);
                        }
                    }
                }, "fence-test"));
        assertThat(atChunk.await(120, TimeUnit.SECONDS)).isTrue();
        Response held = get(base, "op");
        assertThat(held.body().path("importFence").path("by").stringValue()).isEqualTo("fence-test");
        assertThat(put(base + "/items/during", "w", Map.of("attributes", Map.of())).code())
                .isEqualTo("IMPORT_IN_PROGRESS");

        // the importer's database session dies (a killed connection, a crashed importer host)
        int pid = held.body().path("importFence").path("sessionPid").asInt();
        assertThat(jdbc.sql("SELECT pg_terminate_backend(?)").param(pid).query(Boolean.class).single()).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!get(base, "op").body().path("importFence").isNull()) {
            assertThat(System.nanoTime()).as("the fence outlived its session").isLessThan(deadline);
            Thread.sleep(20);
        }
        Response write = put(base + "/items/after-session", "w", Map.of("attributes", Map.of()));
        assertThat(write.status()).as(write.raw()).isEqualTo(200);
        assertThat(write.number("position")).isEqualTo(301);

        resume.countDown();
        try {
            running.get(60, TimeUnit.SECONDS);
            throw new AssertionError("the import went on after its fence ended");
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ImportFailedException.class);
        }
        // nothing of the import interleaved with the write: 300 events, then the write
        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'fence-session'")
                .query(Long.class).single()).isEqualTo(301);
    }

    private Response keyed(String path, String key) {
        return call(HttpMethod.PUT, path, "w", "{\"attributes\":{\"k\":1}}", Map.of("Idempotency-Key", key));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
