package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Maintenance mode is a row, not a flag in memory: turned on on both services, it holds across a restart of each
 * (writes, deliveries and public reads answer 503 MAINTENANCE), and the product catches up once both are resumed.
 * The rotation's epoch is in the control store and the restarted resolver writes in it. Turning the product's
 * maintenance off learns that epoch first, so no public read after it is served from the old epoch's generation
 * (without that, the last read raced the product learning the epoch).
 */
class MaintenanceSystemIT {

    private static final String ON = "{\"enabled\":true}";
    private static final String OFF = "{\"enabled\":false}";
    /**
     * The product's other ways of learning a new epoch slowed down (a sweep a minute, no progress resync, a periodic
     * cycle every 10 min), so that after maintenance-off only the switch itself can have taught it epoch 2: the
     * assertion below cannot pass by the product winning the race (before the switch learnt the epoch, this
     * failed every time, and with the defaults it raced the product's next sweep or progress report).
     */
    private static final Map<String, String> SLOW_TO_LEARN = Map.of("SPRING_APPLICATION_JSON", "{\"product\":{"
            + "\"progress\":{\"resync-interval\":\"PT1H\"},\"recovery\":{\"interval\":\"PT10M\"},"
            + "\"epochs\":{\"poll-interval\":\"PT1M\"}}}");

    @Test
    void maintenanceSurvivesARestartOfBothServicesAndBothResume() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve("acme", "maint");
            sys.startResolver();
            sys.startProduct(sys.resolverUrl(), SLOW_TO_LEARN);
            String s = sys.resolverUrl() + "/v1/streams/acme/maint";
            String item = sys.productUrl() + "/v1/catalog/acme/maint/items/boot";
            sys.ok("PUT", s + "/items/boot", "w", "{\"attributes\":{\"name\":\"Boot\"}}");
            sys.registerProduct("acme", "maint");
            sys.ok("PUT", s + "/releases/r1", "w", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"boot\","
                    + "\"revision\":1}]}");
            await().atMost(Duration.ofSeconds(30)).until(() -> sys.call("GET", item, null, null).status() == 200);

            sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", ON);
            sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", ON);
            sys.resolver.close();
            sys.product.close();
            sys.startResolver();
            sys.startProduct(sys.resolverUrl(), SLOW_TO_LEARN);

            assertThat(sys.ok("GET", sys.resolverUrl() + "/v1/admin/maintenance", "op", null).path("enabled")
                    .booleanValue()).isTrue();
            assertThat(sys.ok("GET", sys.productUrl() + "/v1/admin/maintenance", "op", null).path("enabled")
                    .booleanValue()).isTrue();
            TwoServices.Response write = sys.call("PUT", s + "/items/boot", "w", "{\"attributes\":{\"name\":\"B2\"}}");
            assertThat(write.status()).isEqualTo(503);
            assertThat(write.json().path("code").stringValue()).isEqualTo("MAINTENANCE");
            TwoServices.Response read = sys.call("GET", item, null, null);
            assertThat(read.status()).isEqualTo(503);
            assertThat(read.json().path("code").stringValue()).isEqualTo("MAINTENANCE");

            // while both are paused an operator rotates the epoch; it is in the control store, not in memory
            assertThat(sys.ok("POST", sys.resolverUrl() + "/v1/epochs/acme/maint/rotate", "op",
                    "{\"reason\":\"maintenance test\"}").path("epoch").longValue()).isEqualTo(2);
            sys.resolver.close();
            sys.startResolver();
            assertThat(sys.ok("GET", sys.resolverUrl() + "/v1/epochs/acme/maint", "op", null).path("epoch")
                    .longValue()).isEqualTo(2);

            sys.ok("POST", sys.resolverUrl() + "/v1/admin/maintenance", "op", OFF);
            sys.ok("POST", sys.productUrl() + "/v1/admin/maintenance", "op", OFF);
            // turning the product's maintenance off learnt epoch 2 first: from the first read on it refuses
            // the epoch-1 generation (503 STREAM_FENCED, stale serving is off) until the rebuild from an export of
            // epoch 2 cut over, never serves it, and never answers 404. A 200 while the serving pointer is still the
            // epoch-1 generation (checked right after the read: the pointer never goes back to epoch 1) is old data.
            java.util.Set<String> seen = new java.util.concurrent.ConcurrentSkipListSet<>();
            java.util.List<String> oldEpochServed = new java.util.ArrayList<>();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20)).until(() -> {
                TwoServices.Response r = sys.call("GET", item, null, null);
                seen.add(r.status() + (r.status() == 503 ? " " + r.json().path("code").stringValue() : ""));
                if (r.status() == 200 && servingEpoch(sys) == 1) {
                    oldEpochServed.add(r.body());
                }
                return r.status() == 200 && sys.ok("GET", sys.productUrl()
                        + "/v1/projection-completeness?tenant=acme&catalog=maint", "op", null).path("epoch")
                        .longValue() == 2;
            });
            assertThat(oldEpochServed).as("reads served from the epoch-1 generation after maintenance-off").isEmpty();
            assertThat(seen).as("public reads while the product caught up with epoch 2")
                    .isSubsetOf("200", "503 STREAM_FENCED");
            assertThat(sys.ok("PUT", s + "/items/boot", "w", "{\"attributes\":{\"name\":\"B2\"}}").path("epoch")
                    .longValue()).isEqualTo(2);
        }
    }

    /** The epoch of the product's serving generation of acme/maint. */
    private static long servingEpoch(TwoServices sys) throws Exception {
        return TwoServices.scalar(sys.productDb, "SELECT g.epoch FROM product.serving_generation s "
                + "JOIN product.generation g USING (generation_id) WHERE s.catalog = 'maint'");
    }
}
