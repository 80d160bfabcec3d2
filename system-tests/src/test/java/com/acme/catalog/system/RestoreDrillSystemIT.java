package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.testsupport.CuttableProxy;
import com.acme.catalog.testsupport.NeedsPostgresTools;
import com.acme.catalog.testsupport.TestDatabase;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The restore drill with both services as processes from their jars and
 * PostgreSQL's own {@code pg_dump}/{@code pg_restore} (docs/runbooks/restore.md). Writes → dump the resolver's
 * database → more writes, which the product applies → stop the resolver, restore the dump, start it → it refuses
 * writes (HISTORY_ROLLED_BACK: its cursor is behind the control store's high-water mark) → maintenance + rotate →
 * the product rebuilds by itself from an export of the new epoch and registers in it → checksums (accepted-state-v1
 * and public-view-v1) equal at the new epoch; items written after the dump never reappear publicly; a replayed
 * old-epoch delivery is audited and ignored; an old-epoch catch-up request is 410 EPOCH_CHANGED. Prints the RTO
 * (restore done → the product serving the new epoch). A second stream the restore did not affect (nothing written
 * after the dump) is rotated too, and the product adopts the new epoch in place for it: no rebuild, its generation
 * kept, CURRENT at epoch 2 with equal checksums, and its next write delivered live in epoch 2.
 */
@NeedsPostgresTools
class RestoreDrillSystemIT {

    private static final String T = "acme";
    private static final String C = "drill";
    /** A stream the restore did not affect: its projection already equals the restored state. */
    private static final String KEPT = "kept";
    private static final String ON = "{\"enabled\":true}";
    private static final String OFF = "{\"enabled\":false}";
    /** Items written before the dump (the restored state) and after it (lost by the restore). */
    private static final int BEFORE = 60;
    private static final int AFTER = 25;

    @Test
    void aRestoredResolverIsFencedAndTheProductRebuildsItselfAtTheNewEpoch() throws Exception {
        drill(false);
    }

    /**
     * The restore lands after the last recorded high-water mark (marks recorded only hourly, the resolver killed
     * with SIGKILL so it records nothing on the way down): the restored resolver's own check finds nothing; the
     * product's recovery worker finds its applied position ahead of the resolver's cursor, reports it (the
     * consumer's rollback signal), the resolver refuses writes with HISTORY_ROLLED_BACK and the product marks its
     * generation diverged with that reason (BLOCKED, replaced by a rebuild). Then the same rotation and recovery.
     * Without the product's report the restored resolver accepts writes into positions the product applied.
     */
    @Test
    void aRestoreAfterTheLastRecordedMarkIsCaughtByTheProductsPositionAhead() throws Exception {
        drill(true);
    }

    private void drill(boolean afterLastMark) throws Exception {
        try (TwoServices sys = new TwoServices(); CuttableProxy control = proxyTo(sys.controlDb)) {
            String controlUrl = sys.controlDb.jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + control.port() + "/");
            Map<String, String> resolverEnv = Map.of("RELAY_ALLOWED_DELIVERY_URLS", sys.productUrl() + "/",
                    "CONTROL_DATASOURCE_URL", controlUrl,
                    "SPRING_APPLICATION_JSON", afterLastMark
                            ? "{\"control\":{\"high-water-mark-interval\":\"PT1H\",\"rollback-check-interval\":\"PT1H\"}}"
                            : "{\"control\":{\"high-water-mark-interval\":\"PT0.2S\","
                                    + "\"rollback-check-interval\":\"PT2S\",\"grace\":\"PT2S\"}}");
            sys.startResolver(resolverEnv);
            sys.startProduct(sys.resolverUrl(), Map.of("PRODUCT_STREAMS", T + "/" + C + "," + T + "/" + KEPT,
                    "SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":{\"resync-interval\":\"PT1S\"},"
                            + "\"recovery\":{\"interval\":\"PT1S\",\"max-backoff\":\"PT5S\"},"
                            + "\"epochs\":{\"poll-interval\":\"PT0.5S\"}}}"));
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            String catalog = sys.productUrl() + "/v1/catalog/" + T + "/" + C;

            // 1. writes, applied by the product
            sys.seed(T, C, BEFORE, "seed-1");
            sys.registerProduct(T, C);
            sys.assertConverged(T, C);
            long dumped = position(sys);
            sys.seed(T, KEPT, 5, "seed-0");
            sys.registerProduct(T, KEPT);
            sys.assertConverged(T, KEPT);
            long keptGeneration = TwoServices.scalar(sys.productDb, "SELECT generation_id FROM "
                    + "product.serving_generation WHERE tenant = '" + T + "' AND catalog = '" + KEPT + "'");

            // 2. dump the resolver's database (and only it: never the control store)
            Path dump = Files.createTempFile("drill-resolver", ".dump");
            run("pg_dump", "--format=custom", "--file=" + dump, "--dbname=" + libpqUrl(sys.resolverDb));

            // 3. more writes, which the product applies and serves
            for (int i = 0; i < AFTER; i++) {
                sys.ok("PUT", s + "/items/post-" + i, "w", "{\"attributes\":{\"name\":\"Post " + i + "\"}}");
            }
            sys.ok("PUT", s + "/releases/post", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"post-0\",\"revision\":1}]}");
            sys.assertConverged(T, C);
            assertThat(sys.call("GET", catalog + "/items/post-0", null, null).status()).isEqualTo(200);
            long head = position(sys);
            assertThat(head).isGreaterThan(dumped);
            // an epoch-1 event the restore will lose, kept to replay it later
            Map<String, Object> lost = TwoServices.rows(sys.resolverDb, "SELECT wire, chain_digest FROM "
                    + "resolver.outbox WHERE epoch = 1 AND position = " + head).get(0);
            String epochs = sys.resolverUrl() + "/v1/epochs/" + T + "/" + C;
            if (afterLastMark) {
                assertThat(sys.ok("GET", epochs, "op", null).path("highWaterMark").longValue())
                        .as("no mark recorded since the dump").isLessThanOrEqualTo(dumped);
            } else {
                // the control store has recorded the head (asynchronously): the restore lands behind its mark
                await().atMost(Duration.ofSeconds(20)).until(() -> sys.ok("GET", epochs, "op", null)
                        .path("highWaterMark").longValue() == head);
            }

            // 4. stop the resolver, restore the dump into a fresh database of the same name, start it
            if (afterLastMark) {
                sys.resolver.kill();
            } else {
                sys.resolver.close();
            }
            long restoreStarted = System.nanoTime();
            admin(sys.resolverDb, "DROP DATABASE " + sys.resolverDb.name() + " WITH (FORCE)");
            admin(sys.resolverDb, "CREATE DATABASE " + sys.resolverDb.name());
            run("pg_restore", "--exit-on-error", "--no-owner", "--dbname=" + libpqUrl(sys.resolverDb),
                    dump.toString());
            sys.startResolver(resolverEnv);
            long restoreDone = System.nanoTime();
            assertThat(position(sys)).as("the restored cursor").isEqualTo(dumped);

            // 5. it refuses writes: its cursor is behind the control store's high-water mark, or (after the last
            // mark) once the product reported its position ahead
            if (afterLastMark) {
                // the product's worker found its position ahead, reported it, and the resolver confirmed
                await().atMost(Duration.ofSeconds(90)).until(() -> TwoServices.scalar(sys.productDb, "SELECT count(*) "
                        + "FROM product.generation WHERE divergence LIKE '%confirmed HISTORY_ROLLED_BACK%'") == 1);
                assertThat(sys.ok("GET", epochs, "op", null).path("highWaterMark").longValue()).isLessThanOrEqualTo(dumped);
            }
            TwoServices.Response refused = sys.call("PUT", s + "/items/refused", "w",
                    "{\"attributes\":{\"name\":\"Refused\"}}");
            assertThat(refused.status()).as(refused.body()).isEqualTo(503);
            assertThat(refused.json().path("code").stringValue()).isEqualTo("HISTORY_ROLLED_BACK");

            // 6. maintenance on both, rotate, maintenance off; from the product's maintenance on, the items written
            // after the dump are never served again
            sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", ON);
            List<String> served = new CopyOnWriteArrayList<>();
            AtomicBoolean watching = new AtomicBoolean(true);
            Thread watcher = new Thread(() -> {
                while (watching.get()) {
                    try {
                        for (String id : List.of("post-0", "post-1")) {
                            TwoServices.Response r = sys.call("GET", catalog + "/items/" + id, null, null);
                            if (r.status() == 200) {
                                served.add(id + ": " + r.body());
                            }
                        }
                        Thread.sleep(20);
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "post-dump-watcher");
            watcher.start();
            sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", ON);
            JsonNode rotated = sys.ok("POST", sys.resolverUrl() + "/v1/epochs/" + T + "/" + C + "/rotate", "op",
                    "{\"reason\":\"restore drill: resolver database restored from pg_dump\"}");
            assertThat(rotated.path("epoch").longValue()).isEqualTo(2);
            assertThat(sys.ok("POST", sys.resolverUrl() + "/v1/epochs/" + T + "/" + KEPT + "/rotate", "op",
                    "{\"reason\":\"restore drill: every stream rotated\"}").path("epoch").longValue()).isEqualTo(2);
            sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", OFF);
            // the product learns the new epoch by itself (its epoch poller), then serving resumes
            await().atMost(Duration.ofSeconds(20)).until(() -> completeness(sys).path("reason").asString()
                    .startsWith("EPOCH_CHANGED") || completeness(sys).path("epoch").longValue() == 2);
            sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", OFF);

            // 7. the product rebuilds by itself from an export of epoch 2 and serves it
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                JsonNode c = completeness(sys);
                return c.path("epoch").longValue() == 2 && "CURRENT".equals(c.path("state").stringValue());
            });
            long servingNewEpoch = System.nanoTime();
            JsonNode view = sys.assertConverged(T, C);
            assertThat(sys.checksum(T, C, "projection-checksum").path("epoch").longValue()).isEqualTo(2);
            assertThat(sys.checksum(T, C, "state-checksum").path("epoch").longValue()).isEqualTo(2);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(1);
            assertThat(sys.call("GET", catalog + "/items/seed-1", null, null).status()).isEqualTo(200);
            assertThat(sys.call("GET", catalog + "/items/post-0", null, null).status()).isEqualTo(404);
            JsonNode consumers = sys.ok("GET", sys.resolverUrl() + "/v1/retention/streams/" + T + "/" + C, "op",
                    null).path("consumers");
            assertThat(consumers.valueStream().anyMatch(c -> "product-1".equals(c.path("consumerId").stringValue())
                    && c.path("epoch").longValue() == 2)).as("%s", consumers).isTrue();

            // the unaffected stream: adopted in place, never rebuilt
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode k = completeness(sys, KEPT);
                return k.path("epoch").longValue() == 2 && "CURRENT".equals(k.path("state").stringValue());
            });
            assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.rebuild WHERE catalog = '"
                    + KEPT + "'")).as("adopted in place: no rebuild").isZero();
            assertThat(TwoServices.scalar(sys.productDb, "SELECT generation_id FROM product.serving_generation "
                    + "WHERE tenant = '" + T + "' AND catalog = '" + KEPT + "'")).isEqualTo(keptGeneration);
            assertThat(TwoServices.scalar(sys.productDb, "SELECT epoch FROM product.generation WHERE generation_id = "
                    + keptGeneration)).isEqualTo(2);
            sys.assertConverged(T, KEPT);
            assertThat(sys.checksum(T, KEPT, "projection-checksum").path("epoch").longValue()).isEqualTo(2);
            assertThat(sys.call("GET", sys.productUrl() + "/v1/catalog/" + T + "/" + KEPT + "/items/seed-0", null,
                    null).status()).isEqualTo(200);
            sys.ok("PUT", sys.resolverUrl() + "/v1/streams/" + T + "/" + KEPT + "/items/seed-0", "w",
                    "{\"attributes\":{\"name\":\"Kept, epoch 2\"}}");
            sys.assertConverged(T, KEPT);
            assertThat(TwoServices.scalar(sys.productDb, "SELECT count(*) FROM product.rebuild WHERE catalog = '"
                    + KEPT + "'")).as("its epoch-2 write delivered live").isZero();

            // 8. a replayed old-epoch delivery: audited and ignored
            TwoServices.Response replay = sys.call("POST", sys.productUrl() + "/v1/inbox/events", "r",
                    "{\"events\":[" + EventWire.withDigest((String) lost.get("wire"), (String) lost.get("chain_digest"))
                            + "]}");
            assertThat(replay.status()).as(replay.body()).isEqualTo(200);
            assertThat(replay.json().path("results").get(0).path("outcome").stringValue())
                    .isEqualTo("IGNORED_OLD_EPOCH");
            JsonNode audit = sys.ok("GET", sys.productUrl() + "/v1/audit/old-epoch-deliveries?tenant=" + T
                    + "&catalog=" + C, "op", null).path("deliveries");
            assertThat(audit.valueStream().anyMatch(d -> "DELIVERY".equals(d.path("source").stringValue())
                    && d.path("epoch").longValue() == 1 && d.path("position").longValue() == head))
                    .as("%s", audit).isTrue();

            // 9. an old-epoch catch-up request: 410 EPOCH_CHANGED
            String lease = sys.ok("POST", sys.resolverUrl() + "/v1/retention/leases", "c", "{\"tenant\":\"" + T
                    + "\",\"catalog\":\"" + C + "\",\"epoch\":2,\"ttlSeconds\":60,\"owner\":\"drill\"}")
                    .path("leaseId").stringValue();
            TwoServices.Response page = sys.call("GET", sys.resolverUrl() + "/v1/exports/events?tenant=" + T
                    + "&catalog=" + C + "&after=0&lease_id=" + lease + "&history_epoch=1&limit=10", "c", null);
            assertThat(page.status()).as(page.body()).isEqualTo(410);
            assertThat(page.json().path("code").stringValue()).isEqualTo("EPOCH_CHANGED");

            // 10. life goes on in epoch 2, delivered live
            sys.ok("PUT", s + "/items/new-0", "w", "{\"attributes\":{\"name\":\"New\"}}");
            sys.ok("PUT", s + "/releases/new", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"new-0\",\"revision\":1}]}");
            sys.assertConverged(T, C);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    sys.call("GET", catalog + "/items/new-0", null, null).status() == 200);
            watching.set(false);
            watcher.join(5000);
            assertThat(served).as("items written after the dump served after the product's maintenance began")
                    .isEmpty();
            assertThat(sys.call("GET", catalog + "/items/post-0", null, null).status()).isEqualTo(404);

            if (!afterLastMark) {
                controlStoreOutage(sys, control);
            }

            double rto = (servingNewEpoch - restoreDone) / 1e9;
            System.out.printf("restore drill%s: %d items restored, %d lost; restore %.1f s; RTO (restore done -> "
                    + "product serving epoch 2) %.1f s%n", afterLastMark ? " (after the last mark)" : "", BEFORE, AFTER, (restoreDone - restoreStarted) / 1e9, rto);
        }
    }

    /**
     * The control store unreachable for a while after the recovery: writes fail closed (503
     * CONTROL_STORE_UNAVAILABLE, nothing written) once the grace is over, reads and the product's public serving
     * keep working and its completeness stays CURRENT; once the store answers again writes resume in epoch 2 and
     * the product converges.
     */
    private static void controlStoreOutage(TwoServices sys, CuttableProxy control) throws Exception {
        String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
        String catalog = sys.productUrl() + "/v1/catalog/" + T + "/" + C;
        long before = position(sys);
        control.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            TwoServices.Response r = sys.call("PUT", s + "/items/outage", "w", "{\"attributes\":{\"name\":\"O\"}}");
            if (r.status() == 200) {
                return false;
            }
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.json().path("code").stringValue()).isEqualTo("CONTROL_STORE_UNAVAILABLE");
            return true;
        });
        long refusedAt = position(sys);
        for (int i = 0; i < 3; i++) {
            TwoServices.Response r = sys.call("PUT", s + "/items/outage-" + i, "w", "{\"attributes\":{}}");
            assertThat(r.status()).as(r.body()).isEqualTo(503);
        }
        assertThat(position(sys)).as("nothing written while failing closed").isEqualTo(refusedAt);
        assertThat(sys.call("GET", catalog + "/items/seed-1", null, null).status()).isEqualTo(200);
        Thread.sleep(3000);
        assertThat(completeness(sys).path("state").stringValue()).isEqualTo("CURRENT");
        assertThat(sys.call("GET", catalog + "/items/seed-1", null, null).status()).isEqualTo(200);

        control.mend();
        await().atMost(Duration.ofSeconds(30)).until(() -> sys.call("PUT", s + "/items/after-outage", "w",
                "{\"attributes\":{\"name\":\"After\"}}").status() == 200);
        assertThat(position(sys)).isGreaterThan(before);
        sys.assertConverged(T, C);
        assertThat(sys.checksum(T, C, "projection-checksum").path("epoch").longValue()).isEqualTo(2);
    }

    private static long position(TwoServices sys) throws Exception {
        return sys.ok("GET", sys.resolverUrl() + "/v1/streams/" + T + "/" + C + "/cursor", "op", null)
                .path("position").longValue();
    }

    private static JsonNode completeness(TwoServices sys) throws Exception {
        return completeness(sys, C);
    }

    private static JsonNode completeness(TwoServices sys, String catalog) throws Exception {
        return sys.ok("GET", sys.productUrl() + "/v1/projection-completeness?tenant=" + T + "&catalog=" + catalog,
                "op", null);
    }

    /** A proxy to the server the database is on (TEST_DATABASE_URL's, not always 127.0.0.1:5432). */
    private static CuttableProxy proxyTo(TestDatabase db) throws Exception {
        java.net.URI direct = java.net.URI.create(db.jdbcUrl().substring("jdbc:".length()));
        return new CuttableProxy(direct.getHost(), direct.getPort() < 0 ? 5432 : direct.getPort());
    }

    /** {@code postgresql://user@host:port/name} for the PostgreSQL tools. */
    static String libpqUrl(TestDatabase db) {
        String hostPortName = db.jdbcUrl().substring("jdbc:postgresql://".length());
        int q = hostPortName.indexOf('?');
        return "postgresql://" + db.username() + "@" + (q < 0 ? hostPortName : hostPortName.substring(0, q));
    }

    /** Runs a statement on the server's {@code postgres} database (for DROP/CREATE DATABASE). */
    static void admin(TestDatabase db, String sql) throws Exception {
        String url = libpqUrl(db);
        run("psql", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--dbname=" + url.substring(0, url.lastIndexOf('/'))
                + "/postgres", "-c", sql);
    }

    static void run(String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }
}
