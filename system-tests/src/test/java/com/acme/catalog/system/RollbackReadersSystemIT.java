package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.testsupport.NeedsPostgresTools;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What readers see during a rollback, with both services from their jars: public reads sampled every ~25 ms through a
 * whole rollback and its runbook (docs/runbooks/rollback-restore.md). Writes, a dump of the resolver's database, a
 * lost tail (item {@code lost-0} in a PUBLIC release, served by the product), the dump restored: the resolver finds
 * its cursor behind the control store's high-water mark at start (detection, {@code rolled_back_at}); the operator
 * reacts 8 s later (maintenance on both, rotate, maintenance off on both, as the runbook says, without waiting) and
 * the product rebuilds at epoch 2 by itself.
 *
 * <p>Required: no read started more than 5 s after the detection answers 200 with the lost item (the product's
 * rollback poll learns it from {@code GET /v1/streams?rolledBack=true}; before, it served the lost tail until the
 * operator's maintenance, 16 s in the drill); no read after the product's maintenance-off is served from an epoch-1
 * generation (the product learns epoch 2 before maintenance goes off; before, for up to a sweep interval after it).
 */
@NeedsPostgresTools
class RollbackReadersSystemIT {

    private static final String T = "acme";
    private static final String C = "readers";
    private static final String ON = "{\"enabled\":true}";
    private static final String OFF = "{\"enabled\":false}";

    /** One public read: when it started, what it asked for and what it got. */
    record Sample(Instant at, String item, int status, String code, long servingEpoch) {
    }

    @Test
    void readersNeverSeeTheLostTailFiveSecondsAfterDetectionNorAnOldEpochAfterMaintenanceOff() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            Map<String, String> resolverEnv = Map.of("SPRING_APPLICATION_JSON",
                    "{\"control\":{\"high-water-mark-interval\":\"PT0.2S\",\"rollback-check-interval\":\"PT2S\"}}");
            sys.startResolver(resolverEnv);
            // the product's defaults (a sweep every 5 s, the rollback poll every 2 s) but a periodic cycle only every
            // 10 min: the refusal must come from what the resolver lists, not from a cycle that happens to find the
            // product ahead (before this change that was the only way, 30 s by default, the test failing every time)
            sys.startProduct(sys.resolverUrl(), Map.of("SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":"
                    + "{\"resync-interval\":\"PT1S\"},\"recovery\":{\"interval\":\"PT10M\"}}}"));
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            String catalog = sys.productUrl() + "/v1/catalog/" + T + "/" + C;

            sys.seed(T, C, 10, "seed-1");
            sys.registerProduct(T, C);
            sys.assertConverged(T, C);
            Path dump = Files.createTempFile("readers-resolver", ".dump");
            RestoreDrillSystemIT.run("pg_dump", "--format=custom", "--file=" + dump,
                    "--dbname=" + RestoreDrillSystemIT.libpqUrl(sys.resolverDb));

            // the tail the restore will lose: served publicly until the product learns of the rollback
            sys.ok("PUT", s + "/items/lost-0", "w", "{\"attributes\":{\"name\":\"Lost\"}}");
            sys.ok("PUT", s + "/releases/lost", "w", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"seed-1\","
                    + "\"revision\":1},{\"itemId\":\"lost-0\",\"revision\":1}]}");
            sys.assertConverged(T, C);
            assertThat(sys.call("GET", catalog + "/items/lost-0", null, null).status()).isEqualTo(200);
            long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
            await().atMost(Duration.ofSeconds(20)).until(() -> sys.ok("GET", sys.resolverUrl() + "/v1/epochs/" + T
                    + "/" + C, "op", null).path("highWaterMark").longValue() == head);

            List<Sample> samples = new CopyOnWriteArrayList<>();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> sample(sys, catalog, samples, sampling), "public-reads");
            sampler.start();
            try {
                sys.resolver.close();
                RestoreDrillSystemIT.admin(sys.resolverDb, "DROP DATABASE " + sys.resolverDb.name() + " WITH (FORCE)");
                RestoreDrillSystemIT.admin(sys.resolverDb, "CREATE DATABASE " + sys.resolverDb.name());
                RestoreDrillSystemIT.run("pg_restore", "--exit-on-error", "--no-owner",
                        "--dbname=" + RestoreDrillSystemIT.libpqUrl(sys.resolverDb), dump.toString());
                sys.startResolver(resolverEnv);
                await().atMost(Duration.ofSeconds(30)).until(() -> detectedAt(sys) != null);
                Instant detected = detectedAt(sys);
                TwoServices.Response refused = sys.call("PUT", s + "/items/refused", "w", "{\"attributes\":{}}");
                assertThat(refused.json().path("code").stringValue()).isEqualTo("HISTORY_ROLLED_BACK");

                // the operator reacts 8 s after the detection, then follows the runbook without pausing
                Thread.sleep(Math.max(0, Duration.between(Instant.now(), detected.plusSeconds(8)).toMillis()));
                sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", ON);
                sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", ON);
                assertThat(sys.ok("POST", s.replace("/v1/streams/", "/v1/epochs/") + "/rotate", "op",
                        "{\"reason\":\"readers test: restored from pg_dump\"}").path("epoch").longValue()).isEqualTo(2);
                sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", OFF);
                Instant productOff = Instant.now();
                sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", OFF);

                await().atMost(Duration.ofSeconds(90)).until(() -> {
                    JsonNode c = sys.ok("GET", sys.productUrl() + "/v1/projection-completeness?tenant=" + T
                            + "&catalog=" + C, "op", null);
                    return c.path("epoch").longValue() == 2 && "CURRENT".equals(c.path("state").stringValue());
                });
                Thread.sleep(1000);
                sampling.set(false);
                sampler.join(5000);

                List<Sample> lostServedLate = samples.stream().filter(x -> x.item().equals("lost-0")
                        && x.status() == 200 && x.at().isAfter(detected.plusSeconds(5))).toList();
                assertThat(lostServedLate).as("the lost item served more than 5 s after the resolver's detection at "
                        + detected).isEmpty();
                List<Sample> oldEpochAfterOff = samples.stream().filter(x -> x.at().isAfter(productOff)
                        && x.status() == 200 && x.servingEpoch() == 1).toList();
                assertThat(oldEpochAfterOff).as("reads served from an epoch-1 generation after maintenance-off")
                        .isEmpty();
                assertThat(samples).as("the lost item was served before the detection: the test saw the tail")
                        .anyMatch(x -> x.item().equals("lost-0") && x.status() == 200 && x.at().isBefore(detected));
                assertThat(samples).as("refused as rolled back between the detection and the operator's maintenance")
                        .anyMatch(x -> "HISTORY_ROLLED_BACK".equals(x.code()) && x.at().isBefore(productOff));
                assertThat(sys.call("GET", catalog + "/items/lost-0", null, null).status()).isEqualTo(404);
                assertThat(sys.call("GET", catalog + "/items/seed-1", null, null).status()).isEqualTo(200);
                System.out.printf("rollback readers: detection %s; %d reads sampled; last lost-tail 200 %s%n",
                        detected, samples.size(), samples.stream().filter(x -> x.item().equals("lost-0")
                                && x.status() == 200).map(Sample::at).max(Instant::compareTo).orElse(null));
            } finally {
                sampling.set(false);
            }
        }
    }

    /** Reads the lost and a kept item until told to stop; after a 200, which epoch the serving generation is of. */
    private static void sample(TwoServices sys, String catalog, List<Sample> samples, AtomicBoolean sampling) {
        while (sampling.get()) {
            for (String id : List.of("lost-0", "seed-1")) {
                try {
                    Instant at = Instant.now();
                    TwoServices.Response r = sys.call("GET", catalog + "/items/" + id, null, null);
                    String code = r.status() == 503 ? r.json().path("code").stringValue() : null;
                    // the pointer never returns to epoch 1 once at 2: epoch 1 read after the answer was served by it
                    long epoch = r.status() == 200 ? TwoServices.scalar(sys.productDb, "SELECT g.epoch FROM "
                            + "product.serving_generation s JOIN product.generation g USING (generation_id)") : 0;
                    samples.add(new Sample(at, id, r.status(), code, epoch));
                    Thread.sleep(25);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the product answers throughout; a failed read is not a sample
                }
            }
        }
    }

    /** When the resolver marked the open cursor rolled back, or null while it has not. */
    private static Instant detectedAt(TwoServices sys) throws Exception {
        List<Map<String, Object>> rows = TwoServices.rows(sys.resolverDb, "SELECT rolled_back_at FROM "
                + "resolver.stream_cursor WHERE fenced_at IS NULL AND catalog = '" + C + "'");
        return rows.isEmpty() || rows.get(0).get("rolled_back_at") == null ? null
                : ((Timestamp) rows.get(0).get("rolled_back_at")).toInstant();
    }
}
