package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.acme.catalog.testsupport.ServiceProcess;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A rolling projection upgrade (docs/runbooks/projection-upgrade.md) with two product builds on one database: the
 * product jar run as projection version 1 and as version 2 ({@code PRODUCT_PROJECTION_VERSION}, for upgrade tests
 * only). Writers write through the whole upgrade; version 1 serves; version 2 starts beside it, takes the stream's
 * worker lease over, builds a generation of version 2 in the background and cuts over; version 1 keeps serving reads
 * (now of the version 2 generation) and refuses deliveries into it; then version 1 stops. A reader sampling public
 * reads from both instances through the whole upgrade never sees a 404, a 503 or an answer of version 1 after one of
 * version 2 (each answer names the version of the one generation it was read from); afterwards the product's
 * checksums equal the resolver's, the serving generation has version 2, and version 1 never started a rebuild.
 */
class ProjectionUpgradeSystemIT {

    private static final String T = "acme";
    private static final String C = "upgrade";
    private static final int WRITERS = 2;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aRollingUpgradeRebuildsInTheBackgroundWhileReadersNeverSeeAGapOrAMix() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            sys.seed(T, C, 100, "seed-1");
            sys.startProduct(sys.resolverUrl(), instance("v1", 1));
            String v1 = sys.productUrl();
            await().atMost(Duration.ofSeconds(60)).until(() -> read(v1).status() == 200);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                threads.add(start(() -> {
                    Random random = new Random(writer);
                    while (!stop.get()) {
                        String id = "w" + writer + "-sku-" + random.nextInt(40);
                        JsonNode r = sys.ok("PUT", s + "/items/" + id, "w", "{\"attributes\":{\"name\":\"Item "
                                + id + "\",\"price\":" + random.nextInt(500) + "}}");
                        writes.incrementAndGet();
                        if (random.nextInt(4) == 0) {
                            sys.ok("PUT", s + "/releases/rel-" + writer, "w", "{\"visibility\":\"PUBLIC\","
                                    + "\"items\":[{\"itemId\":\"" + id + "\",\"revision\":"
                                    + r.path("revision").intValue() + "}]}");
                        }
                    }
                }, errors));
            }

            // the reader: public reads from every running instance, in turn, for the whole upgrade
            List<String> readable = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(v1));
            AtomicInteger reads = new AtomicInteger();
            AtomicInteger newest = new AtomicInteger();
            AtomicReference<String> bad = new AtomicReference<>();
            threads.add(start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String base = readable.get(i % readable.size());
                    Read r = read(base);
                    reads.incrementAndGet();
                    if (r.status() != 200 || r.version() == null) {
                        bad.compareAndSet(null, base + " answered " + r.status() + " (version " + r.version()
                                + ") at read " + i);
                    } else if (r.version() < newest.get()) {
                        bad.compareAndSet(null, base + " answered version " + r.version() + " after version "
                                + newest.get() + " at read " + i);
                    } else {
                        newest.set(r.version());
                    }
                }
            }, errors));
            await().atMost(Duration.ofSeconds(20)).until(() -> writes.get() > 40 && reads.get() > 20);
            assertThat(newest.get()).as("served by version 1 before the upgrade").isEqualTo(1);

            int port2 = TwoServices.freePort();
            ServiceProcess product2 = ServiceProcess.start("product-service", port2, env(sys, "v2", 2));
            try {
                String v2 = "http://localhost:" + port2;
                readable.add(v2);
                // version 2 rebuilds in the background and cuts over; the completeness status shows both versions
                // while it runs
                AtomicBoolean sawBoth = new AtomicBoolean();
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    JsonNode p = sys.ok("GET", v1 + "/v1/projection-completeness?tenant=" + T + "&catalog=" + C,
                            "op", null).path("projection");
                    if (p.path("servingVersion").isNumber() && p.path("servingVersion").intValue() == 1
                            && p.path("buildingVersion").isNumber() && p.path("buildingVersion").intValue() == 2) {
                        sawBoth.set(true);
                    }
                    return servingVersion(sys) == 2;
                });
                assertThat(sawBoth.get()).as("the status showed version 1 serving and version 2 building").isTrue();
                JsonNode status = sys.ok("GET", v2 + "/v1/projection-completeness?tenant=" + T + "&catalog=" + C,
                        "op", null);
                assertThat(status.path("projection").path("servingVersion").intValue()).isEqualTo(2);
                assertThat(status.path("projection").path("codeVersion").intValue()).isEqualTo(2);
                Thread.sleep(2000); // reads and writes go on after the cutover, both instances still up
                assertThat(sys.ok("GET", v1 + "/v1/projection-completeness?tenant=" + T + "&catalog=" + C, "op",
                        null).path("projection").path("codeVersion").intValue()).isEqualTo(1);

                // the rolling upgrade ends: version 1 stops
                readable.remove(v1);
                sys.product.close();
                sys.product = null;
                Thread.sleep(1000);
                stop.set(true);
                for (Thread t : threads) {
                    t.join();
                }
                assertThat(errors).isEmpty();
                assertThat(bad.get()).as("reads through the upgrade (%d)", reads.get()).isNull();
                assertThat(newest.get()).isEqualTo(2);

                assertConverged(sys, v2);
                assertThat(servingVersion(sys)).isEqualTo(2);
                assertThat(TwoServices.rows(sys.productDb,
                        "SELECT reason, projection_version, phase FROM product.rebuild")).as("v1 never rebuilt")
                        .isNotEmpty().allSatisfy(r -> {
                            assertThat(r.get("reason")).isEqualTo("PROJECTION_UPGRADE");
                            assertThat(r.get("projection_version")).isEqualTo(2);
                            assertThat(r.get("phase")).isEqualTo("DONE");
                        });
                // it does not loop: after the cutover the serving version is the code's
                Thread.sleep(3000);
                assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.rebuild")).isEqualTo(1);
            } finally {
                product2.close();
            }
        }
    }

    /** The product's environment with this instance's id, its projection version and a fast recovery interval. */
    private static Map<String, String> instance(String id, int version) {
        return Map.of("PRODUCT_RECOVERY_INSTANCE_ID", id, "PRODUCT_PROJECTION_VERSION", Integer.toString(version),
                "PRODUCT_RECOVERY_INTERVAL", "PT2S");
    }

    /**
     * The second instance's environment: as {@link TwoServices#startProduct}'s, the same database and object store;
     * its delivery URL is the first instance's (the relay's one address, as a load balancer's would be).
     */
    private static Map<String, String> env(TwoServices sys, String id, int version) {
        Map<String, String> env = new HashMap<>(Map.of(
                "SPRING_DATASOURCE_URL", sys.productDb.jdbcUrl(),
                "SPRING_DATASOURCE_USERNAME", sys.productDb.username(),
                "RESOLVER_URL", sys.resolverUrl(),
                "RESOLVER_TOKEN", "c",
                "PRODUCT_CONSUMER_ID", "product-1",
                "PRODUCT_DELIVERY_URL", sys.productUrl() + "/v1/inbox/events",
                "SECURITY_TOKENS", TwoServices.TOKENS,
                "OBJECT_STORE_URI", "file:" + sys.objects.toAbsolutePath(),
                "PRODUCT_STREAMS", T + "/" + C));
        env.putAll(instance(id, version));
        return env;
    }

    private static long servingVersion(TwoServices sys) throws Exception {
        return TwoServices.scalar(sys.productDb, """
                SELECT g.projection_version FROM product.generation g
                  JOIN product.serving_generation s USING (generation_id)
                """);
    }

    /** The product at {@code product} processed the resolver's head; its checksums equal the resolver's. */
    private static void assertConverged(TwoServices sys, String product) throws Exception {
        String path = "/v1/streams/" + T + "/" + C;
        long head = sys.ok("GET", sys.resolverUrl() + path + "/cursor", "op", null).path("position").longValue();
        await().atMost(Duration.ofSeconds(90)).until(() ->
                sys.ok("GET", product + path + "/projection-checksum", "op", null).path("position").longValue()
                        == head);
        for (String profile : TwoServices.PROFILES) {
            JsonNode mine = sys.ok("GET", product + path + "/projection-checksum?profile=" + profile, "op", null);
            JsonNode theirs = sys.ok("GET", sys.resolverUrl() + path + "/state-checksum?profile=" + profile, "op",
                    null);
            assertThat(mine.path("position")).as(profile).isEqualTo(theirs.path("position"));
            assertThat(mine.path("tables")).as(profile).isEqualTo(theirs.path("tables"));
        }
    }

    private record Read(int status, Integer version) {
    }

    private Read read(String base) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/catalog/" + T + "/" + C
                + "/items/seed-1")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return new Read(r.statusCode(), r.headers().firstValue("Projection-Version").map(Integer::valueOf)
                .orElse(null));
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    private static Thread start(Body body, ConcurrentLinkedQueue<Throwable> errors) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        });
        t.start();
        return t;
    }
}
