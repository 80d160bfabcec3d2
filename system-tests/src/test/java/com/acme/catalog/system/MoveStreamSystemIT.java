package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code bin/move-stream.sh} with two resolver databases (each its own resolver and control store) and one product:
 * the stream is written at resolver A and served by the product; the script fences A, exports, converts, imports at B
 * in an epoch above A's, verifies B's accepted-state-v1 against the export and retires the stream at A. A then refuses
 * writes with 410 STREAM_MOVED naming B; the product, pointed at B (its RESOLVER_URL), serves the stream from B's
 * epoch with both checksum profiles equal to B's; writes go on at B.
 */
class MoveStreamSystemIT {

    private static final String T = "move";
    private static final String C = "shoes";

    @Test
    void aStreamMovesToAnotherResolverDatabaseAndTheProductFollowsIt() throws Exception {
        try (TwoServices sys = new TwoServices();
             TestDatabase dbB = TestDatabase.create("sys_resolver_b");
             TestDatabase controlB = TestDatabase.create("sys_control_b")) {
            sys.serve(T, C);
            String fast = "{\"product\":{\"progress\":{\"resync-interval\":\"PT1S\"},\"recovery\":{\"interval\":"
                    + "\"PT1S\",\"max-backoff\":\"PT5S\"},\"epochs\":{\"poll-interval\":\"PT0.5S\"}}}";
            sys.startResolver(Map.of("RELAY_ALLOWED_DELIVERY_URLS", sys.productUrl() + "/"));
            int portB = TwoServices.freePort();
            Map<String, String> envB = new HashMap<>(Map.of(
                    "SPRING_DATASOURCE_URL", dbB.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", dbB.username(),
                    "CONTROL_DATASOURCE_URL", controlB.jdbcUrl(), "CONTROL_DATASOURCE_USERNAME", controlB.username(),
                    "RELAY_TOKEN", "r", "RELAY_ALLOWED_DELIVERY_URLS", sys.productUrl() + "/",
                    "OBJECT_STORE_URI", "file:" + sys.objects.toAbsolutePath(), "SECURITY_TOKENS", TwoServices.TOKENS));
            if (dbB.password() != null) {
                envB.put("SPRING_DATASOURCE_PASSWORD", dbB.password());
                envB.put("CONTROL_DATASOURCE_PASSWORD", controlB.password());
            }
            try (ServiceProcess resolverB = ServiceProcess.start("resolver-service", portB, envB)) {
                String a = sys.resolverUrl();
                String b = "http://localhost:" + portB;
                sys.startProduct(a, Map.of("SPRING_APPLICATION_JSON", fast));
                sys.seed(T, C, 120, "seed-3");
                String sa = a + "/v1/streams/" + T + "/" + C;
                for (int i = 0; i < 40; i++) {
                    sys.ok("PUT", sa + "/items/seed-" + i, "w", "{\"attributes\":{\"name\":\"Seed " + i + " v2\"}}");
                }
                sys.ok("DELETE", sa + "/items/seed-7", "w", null);
                sys.ok("PUT", sa + "/releases/later", "w", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":"
                        + "\"seed-5\",\"revision\":2},{\"itemId\":\"seed-60\",\"revision\":1}]}");
                sys.registerProduct(T, C);
                sys.assertConverged(T, C);
                JsonNode publicBefore = sys.checksum(T, C, "state-checksum", "public-view-v1").path("tables");

                // the move
                Path work = Files.createTempDirectory("move-system-");
                ProcessBuilder pb = new ProcessBuilder("bash", Path.of("..", "bin", "move-stream.sh").toString(),
                        "--tenant", T, "--catalog", C, "--from", a, "--to", b, "--token", "op",
                        "--object-store", "file:" + sys.objects.toAbsolutePath(), "--work", work.toString(),
                        "--jar", ServiceProcess.locate("resolver-service").toString())
                        .redirectError(work.resolve("move.log").toFile());
                Process move = pb.start();
                String out = new String(move.getInputStream().readAllBytes());
                assertThat(move.waitFor(10, TimeUnit.MINUTES)).isTrue();
                assertThat(move.exitValue()).as("%s\n%s", out, Files.readString(work.resolve("move.log"))).isZero();
                JsonNode result = TwoServices.JSON.readTree(out);
                System.out.println("[move-system] " + out.strip());
                assertThat(result.path("status").stringValue()).isEqualTo("MOVED");
                long epochA = result.path("sourceEpoch").longValue();
                long epochB = result.path("targetEpoch").longValue();
                assertThat(epochB).isGreaterThan(epochA);
                for (String phase : List.of("fence", "export", "convert", "import", "verify", "retire")) {
                    assertThat(result.path("phases").path(phase).isNumber()).as(phase).isTrue();
                }
                assertThat(result.path("writesRefusedSeconds").doubleValue()).isPositive();

                // the source is retired and names the target; the target holds the same state
                TwoServices.Response gone = sys.call("PUT", sa + "/items/late", "w", "{\"attributes\":{}}");
                assertThat(gone.status()).as(gone.body()).isEqualTo(410);
                assertThat(gone.json().path("code").stringValue()).isEqualTo("STREAM_MOVED");
                assertThat(gone.json().path("location").stringValue()).isEqualTo(b);
                String sb = b + "/v1/streams/" + T + "/" + C;
                for (String profile : TwoServices.PROFILES) {
                    assertThat(sys.ok("GET", sb + "/state-checksum?profile=" + profile, "op", null).path("tables"))
                            .as(profile).isEqualTo(sys.ok("GET", sa + "/state-checksum?profile=" + profile, "op", null)
                                    .path("tables"));
                }

                // the product follows the target: pointed at B, it serves the stream from B's epoch
                sys.product.close();
                sys.startProduct(b, Map.of("SPRING_APPLICATION_JSON", fast));
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(3)).until(() -> {
                    TwoServices.Response c = sys.call("GET", sys.productUrl() + "/v1/projection-completeness?tenant="
                            + T + "&catalog=" + C, "op", null);
                    return c.status() == 200 && "CURRENT".equals(c.json().path("state").stringValue())
                            && c.json().path("epoch").longValue() == epochB;
                });
                assertConvergedWith(sys, b);
                assertThat(sys.ok("GET", b + "/v1/streams/" + T + "/" + C + "/state-checksum?profile=public-view-v1",
                        "op", null).path("tables")).isEqualTo(publicBefore);
                assertThat(sys.call("GET", sys.productUrl() + "/v1/catalog/" + T + "/" + C + "/items/seed-60", null,
                        null).status()).isEqualTo(200);

                // writes go on at the target, and reach the product
                sys.ok("PUT", sb + "/items/after-move", "w", "{\"attributes\":{\"name\":\"new home\"}}");
                assertConvergedWith(sys, b);
            }
        }
    }

    /** {@link TwoServices#assertConverged} against resolver {@code url}. */
    private static void assertConvergedWith(TwoServices sys, String url) throws Exception {
        String s = url + "/v1/streams/" + T + "/" + C;
        long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(90)).until(() ->
                sys.checksum(T, C, "projection-checksum").path("position").longValue() == head);
        for (String profile : TwoServices.PROFILES) {
            assertThat(sys.checksum(T, C, "projection-checksum", profile).path("tables")).as(profile)
                    .isEqualTo(sys.ok("GET", s + "/state-checksum?profile=" + profile, "op", null).path("tables"));
        }
    }
}
