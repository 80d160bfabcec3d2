package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A bootstrap import that fails midway is retried by a reset and a new import, never by reusing positions: both
 * services from their jars, the product subscribed to the tenant by pattern. The first import (the jar's command
 * line) is killed midway: its fence ends with its database session, and the relay delivers the partial import of
 * epoch 1 to the product. The retry ({@code ?reset=…&waitReady=true}) resets the stream to an empty epoch 2 under a
 * new fence, imports the whole file and answers only when the product serves it: CURRENT at epoch 2, both checksum
 * profiles equal. Epoch 1's positions are never written again; one of them delivered again is ignored and audited,
 * and the audit lists the failed import's deliveries.
 */
class ImportResetSystemIT {

    private static final String T = "boot";
    private static final String C = "shoes";
    private static final int EVENTS = 20_000;

    @Test
    void aFailedImportIsResetAndImportedAgainAndTheProductEndsCurrentAtTheNewEpoch() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, "*");
            sys.startResolver(Map.of("RELAY_ALLOWED_DELIVERY_URLS", sys.productUrl() + "/",
                    "BOOTSTRAP_PRODUCT_URL", sys.productUrl(), "BOOTSTRAP_PRODUCT_TOKEN", "op",
                    "BOOTSTRAP_READY_TIMEOUT", "PT5M"));
            sys.startProduct(sys.resolverUrl(), Map.of("SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":"
                    + "{\"resync-interval\":\"PT1S\"},\"recovery\":{\"interval\":\"PT1S\",\"max-backoff\":\"PT5S\"},"
                    + "\"epochs\":{\"poll-interval\":\"PT0.5S\"}}}"));
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            Path file = Files.createTempFile("reset-system-", ".json");
            SnapshotEventsGenerator.write(file, EVENTS, 77);

            // 1. the first import, the jar's command line, dies midway (SIGKILL: its session ends with it)
            Process importer = commandLineImport(sys, file);
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20)).until(() -> {
                TwoServices.Response r = sys.call("GET", s, "op", null);
                return r.status() == 200 && r.json().path("cursor").longValue() >= 2_000;
            });
            JsonNode during = sys.ok("GET", s, "op", null);
            assertThat(during.path("importFence").path("by").stringValue()).isEqualTo("command-line");
            assertThat(sys.call("PUT", s + "/items/during", "w", "{\"attributes\":{}}").status()).isEqualTo(409);
            importer.destroyForcibly().waitFor();
            await().atMost(Duration.ofSeconds(20)).until(() -> sys.ok("GET", s, "op", null).path("importFence")
                    .isNull());
            long partial = sys.ok("GET", s, "op", null).path("cursor").longValue();
            assertThat(partial).isBetween(2_000L, EVENTS - 1L);

            // the fence is gone: the relay delivers the partial import (epoch 1) to the product
            await().atMost(Duration.ofMinutes(3)).until(() -> {
                TwoServices.Response c = sys.call("GET", sys.productUrl() + "/v1/projection-completeness?tenant="
                        + T + "&catalog=" + C, "op", null);
                return c.status() == 200 && c.json().path("verifiedThrough").longValue() == partial
                        && c.json().path("epoch").longValue() == 1;
            });

            // 2. a plain import refuses the partial stream; the import with a reset retries it, waiting until served
            TwoServices.Response plain = sys.call("POST", s + "/bootstrap-import", "op", Files.readString(file));
            assertThat(plain.status()).as(plain.body()).isEqualTo(409);
            assertThat(plain.json().path("code").stringValue()).isEqualTo("DESTINATION_NOT_EMPTY");
            TwoServices.Response retried = sys.call("POST", s + "/bootstrap-import?reset=import%20killed%20midway"
                    + "&waitReady=true", "op", Files.readString(file));
            assertThat(retried.status()).as(retried.body()).isEqualTo(200);
            JsonNode summary = retried.json();
            assertThat(summary.path("status").stringValue()).isEqualTo("COMPLETED");
            assertThat(summary.path("resetEpoch").longValue()).isEqualTo(2);
            assertThat(summary.path("epoch").longValue()).isEqualTo(2);
            assertThat(summary.path("lastPosition").longValue()).isEqualTo(EVENTS);
            assertThat(summary.path("verification").path("ready").asBoolean()).as("%s", summary).isTrue();
            assertThat(summary.path("verification").path("productEpoch").longValue()).isEqualTo(2);

            // 3. the product is CURRENT at epoch 2 with both checksums equal
            JsonNode completeness = sys.ok("GET", sys.productUrl() + "/v1/projection-completeness?tenant=" + T
                    + "&catalog=" + C, "op", null);
            assertThat(completeness.path("state").stringValue()).isEqualTo("CURRENT");
            assertThat(completeness.path("epoch").longValue()).isEqualTo(2);
            sys.assertConverged(T, C);

            // 4. epoch 1's positions stay where they were, fenced; one delivered again is ignored and audited
            List<Map<String, Object>> epochs = TwoServices.rows(sys.resolverDb, "SELECT epoch, count(*) AS n, "
                    + "max(position) AS last FROM resolver.outbox WHERE tenant = '" + T + "' AND catalog = '" + C
                    + "' GROUP BY epoch ORDER BY epoch");
            assertThat(epochs).hasSize(2);
            assertThat(((Number) epochs.get(0).get("last")).longValue()).isEqualTo(partial);
            assertThat(((Number) epochs.get(1).get("last")).longValue()).isEqualTo(EVENTS);
            Map<String, Object> old = TwoServices.rows(sys.resolverDb, "SELECT wire, chain_digest FROM resolver.outbox "
                    + "WHERE tenant = '" + T + "' AND catalog = '" + C + "' AND epoch = 1 AND position = 1").get(0);
            TwoServices.Response replay = sys.call("POST", sys.productUrl() + "/v1/inbox/events", "r",
                    "{\"events\":[" + EventWire.withDigest((String) old.get("wire"), (String) old.get("chain_digest"))
                            + "]}");
            assertThat(replay.status()).as(replay.body()).isEqualTo(200);
            assertThat(replay.json().path("results").get(0).path("outcome").stringValue())
                    .isEqualTo("IGNORED_OLD_EPOCH");
            JsonNode audit = sys.ok("GET", sys.productUrl() + "/v1/audit/old-epoch-deliveries?tenant=" + T
                    + "&catalog=" + C + "&limit=1000", "op", null).path("deliveries");
            List<Long> positions = new ArrayList<>();
            audit.forEach(d -> {
                assertThat(d.path("epoch").longValue()).isEqualTo(1);
                positions.add(d.path("position").longValue());
            });
            assertThat(positions).as("the failed import's deliveries, audited").contains(1L)
                    .allMatch(p -> p >= 1 && p <= partial);
            System.out.printf("[reset-system] partial import %d of %d events in epoch 1, re-imported in epoch 2; "
                    + "ready %.0f ms after its last commit%n", partial, EVENTS, summary.path("readyMs").doubleValue());
        }
    }

    /** {@code java -jar resolver-service.jar --bootstrap-import …} against the resolver's databases. */
    private static Process commandLineImport(TwoServices sys, Path file) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(ServiceProcess.javaBin(), "-jar",
                ServiceProcess.locate("resolver-service").toString(), "--bootstrap-import", file.toString(),
                "--tenant", T, "--catalog", C, "--chunk-events", "50")
                .redirectErrorStream(true).redirectOutput(Files.createTempFile("reset-import-", ".log").toFile());
        pb.environment().put("SPRING_DATASOURCE_URL", sys.resolverDb.jdbcUrl());
        pb.environment().put("SPRING_DATASOURCE_USERNAME", sys.resolverDb.username());
        pb.environment().put("CONTROL_DATASOURCE_URL", sys.controlDb.jdbcUrl());
        pb.environment().put("CONTROL_DATASOURCE_USERNAME", sys.controlDb.username());
        if (sys.resolverDb.password() != null) {
            pb.environment().put("SPRING_DATASOURCE_PASSWORD", sys.resolverDb.password());
            pb.environment().put("CONTROL_DATASOURCE_PASSWORD", sys.controlDb.password());
        }
        return pb.start();
    }
}
