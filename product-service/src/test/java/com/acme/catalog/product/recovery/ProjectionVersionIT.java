package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.TestClients;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Versioned projections on one instance (docs/runbooks/projection-upgrade.md). The instance runs projection version 2
 * ({@code product.projection.version}, for upgrade tests only); a stream whose serving generation is set to version 1
 * is an older one it upgrades, one set to version 3 is a newer one (this instance is then the older build of a rolling
 * upgrade): it never rebuilds it back, neither by the worker's triggers nor by an operator's request without the
 * override, and never writes into it.
 */
@org.springframework.context.annotation.Import(com.acme.catalog.product.support.ProductIT.AnyStreamOnDelivery.class)
@ProductWithRecovery(properties = {
        "product.consumer-id=product-it", "product.recovery.instance-id=it-version",
        "product.epochs.poll-interval=PT1H", "product.rollbacks.poll=PT1H",
        "product.recovery.interval=PT10M", "product.recovery.gap-grace=PT10M",
        "product.projection.version=2",
        // the fake serves no export: a rebuild fails at once instead of retrying for 30 minutes
        "product.rebuild.retry-budget=PT0S"})
class ProjectionVersionIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();

    @DynamicPropertySource
    static void resolverUrl(DynamicPropertyRegistry registry) {
        registry.add("product.resolver-url", RESOLVER::baseUrl);
    }

    @AfterAll
    static void close() {
        RESOLVER.close();
    }

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    RecoveryWorker worker;

    private RestClient client(String token) {
        return TestClients.of(port, token);
    }

    private ResponseEntity<JsonNode> deliver(List<ChainWriter.Event> events) {
        return client("r").post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON)
                .body("{\"events\":[" + String.join(",", events.stream().map(ChainWriter.Event::delivered).toList())
                        + "]}")
                .retrieve().toEntity(JsonNode.class);
    }

    private static List<ChainWriter.Event> history(String catalog, int n, long seed) {
        CatalogHistory h = new CatalogHistory(new Random(seed));
        return new ChainWriter(new StreamId("acme", catalog), 1, new Random(seed + 1)).appendAll(h.random(n));
    }

    /** Opens the stream with the first {@code opened} events delivered, then marks its generation {@code version}. */
    private List<ChainWriter.Event> servedBy(String catalog, int version, int opened, long seed) {
        List<ChainWriter.Event> all = history(catalog, 10, seed);
        RESOLVER.stream(catalog).events = all;
        assertThat(deliver(all.subList(0, opened)).getStatusCode().value()).isEqualTo(200);
        jdbc.sql("""
                UPDATE generation SET projection_version = ?
                 WHERE generation_id = (SELECT generation_id FROM serving_generation WHERE tenant = 'acme'
                                          AND catalog = ?)""").params(version, catalog).update();
        return all;
    }

    private long rebuildsOf(String catalog) {
        return jdbc.sql("SELECT count(*) FROM rebuild WHERE catalog = ?").params(catalog).query(Long.class).single();
    }

    private long appliedOf(String catalog) {
        return jdbc.sql("""
                SELECT g.applied_position FROM serving_generation s JOIN generation g USING (generation_id)
                 WHERE s.tenant = 'acme' AND s.catalog = ?""").params(catalog).query(Long.class).single();
    }

    /**
     * The never-rebuild-back rule: a new epoch, a 410 and a stream behind the resolver would each make the worker
     * rebuild or catch up; for a stream served by a newer projection version the older instance does neither.
     * Without the rule the new epoch starts a rebuild back to version 2 (checked by hand: REBUILDING, one rebuild
     * row), and the catch-up writes version 2's derivations into the version 3 generation.
     */
    @Test
    void theOlderInstanceNeverRebuildsNorCatchesUpAStreamOfANewerVersion() {
        servedBy("newer-epoch", 3, 4, 11);
        RESOLVER.stream("newer-epoch").epoch = 2;
        servedBy("newer-gone", 3, 4, 13);
        RESOLVER.stream("newer-gone").gone = true;
        servedBy("newer-behind", 3, 4, 17);

        for (String catalog : List.of("newer-epoch", "newer-gone", "newer-behind")) {
            StreamId s = new StreamId("acme", catalog);
            for (RecoveryWorker.Trigger why : List.of(RecoveryWorker.Trigger.STARTUP, RecoveryWorker.Trigger.GAP,
                    RecoveryWorker.Trigger.EPOCH_MISMATCH)) {
                assertThat(worker.cycle(s, why)).as("%s (%s)", catalog, why).isEqualTo(RecoveryWorker.Outcome.IDLE);
            }
            assertThat(rebuildsOf(catalog)).as(catalog).isZero();
            assertThat(appliedOf(catalog)).as("nothing written into the newer generation").isEqualTo(4);
        }
    }

    /** An operator's rebuild of a stream of a newer version: 409 PROJECTION_VERSION_OLDER, unless overridden. */
    @Test
    void anOperatorRebuildOfANewerStreamIsRefusedWithoutTheOverride() {
        servedBy("newer-operator", 3, 4, 21);
        ResponseEntity<JsonNode> refused = client("op").post().uri("/v1/rebuilds")
                .contentType(MediaType.APPLICATION_JSON).body("{\"tenant\":\"acme\",\"catalog\":\"newer-operator\"}")
                .retrieve().toEntity(JsonNode.class);
        assertThat(refused.getStatusCode().value()).isEqualTo(409);
        assertThat(refused.getHeaders().getContentType().toString()).startsWith("application/problem+json");
        assertThat(refused.getBody().path("code").stringValue()).isEqualTo("PROJECTION_VERSION_OLDER");
        assertThat(refused.getBody().path("detail").stringValue()).contains("version 3").contains("version 2");
        assertThat(rebuildsOf("newer-operator")).isZero();

        ResponseEntity<JsonNode> overridden = client("op").post()
                .uri("/v1/rebuilds?allowOlderProjection=true").contentType(MediaType.APPLICATION_JSON)
                .body("{\"tenant\":\"acme\",\"catalog\":\"newer-operator\"}").retrieve().toEntity(JsonNode.class);
        assertThat(overridden.getStatusCode().value()).isEqualTo(202);
        JsonNode view = client("op").get().uri("/v1/rebuilds/" + overridden.getBody().path("rebuildId").stringValue())
                .retrieve().body(JsonNode.class);
        assertThat(view.path("reason").stringValue()).isEqualTo("OPERATOR_OLDER_PROJECTION");
        assertThat(view.path("projectionVersion").intValue()).isEqualTo(2);
    }

    /**
     * A delivery to the older instance for a newer generation is refused with 503 PROJECTION_VERSION_NEWER and a
     * Retry-After (the relay retries; an instance of the newer version applies it), and nothing is written.
     */
    @Test
    void aDeliveryForANewerGenerationIsRefusedForTheRelayToRetry() {
        List<ChainWriter.Event> all = servedBy("newer-inbox", 3, 4, 31);
        ResponseEntity<JsonNode> r = deliver(all.subList(4, 6));
        assertThat(r.getStatusCode().value()).isEqualTo(503);
        assertThat(r.getBody().path("code").stringValue()).isEqualTo("PROJECTION_VERSION_NEWER");
        assertThat(r.getHeaders().getFirst("Retry-After")).isNotBlank();
        assertThat(appliedOf("newer-inbox")).isEqualTo(4);
        long inbox = jdbc.sql("""
                SELECT count(*) FROM inbox i JOIN serving_generation s USING (generation_id)
                 WHERE s.catalog = 'newer-inbox' AND i.position > 4""").query(Long.class).single();
        assertThat(inbox).isZero();
        // reads of the newer generation stay served, and name its version
        ResponseEntity<JsonNode> read = client(null).get().uri("/v1/catalog/acme/newer-inbox/search?q=anything")
                .retrieve().toEntity(JsonNode.class);
        assertThat(read.getStatusCode().value()).isEqualTo(200);
        assertThat(read.getHeaders().getFirst("Projection-Version")).isEqualTo("3");
    }

    /**
     * A stream served by an older version is rebuilt in the background for the upgrade (reason PROJECTION_UPGRADE,
     * this instance's version); completeness shows both versions, and the metrics are per instance, not per stream.
     */
    @Test
    void aStreamOfAnOlderVersionIsRebuiltForTheUpgradeAndStatusShowsBothVersions() {
        servedBy("older", 1, 4, 41);
        StreamId s = new StreamId("acme", "older");
        assertThat(worker.cycle(s, RecoveryWorker.Trigger.STARTUP)).isEqualTo(RecoveryWorker.Outcome.REBUILDING);
        String reason = jdbc.sql("SELECT reason || '/' || projection_version FROM rebuild WHERE catalog = 'older'")
                .query(String.class).single();
        assertThat(reason).isEqualTo("PROJECTION_UPGRADE/2");

        JsonNode c = client("op").get().uri("/v1/projection-completeness?tenant=acme&catalog=older").retrieve()
                .body(JsonNode.class);
        assertThat(c.path("projection").path("servingVersion").intValue()).as("%s", c).isEqualTo(1);
        assertThat(c.path("projection").path("codeVersion").intValue()).as("%s", c).isEqualTo(2);
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).contains("product_projection_version_code{application=\"product\"} 2.0")
                .containsPattern("product_projection_serving_version_min\\{application=\"product\"\\} ")
                .containsPattern("product_projection_streams_behind\\{application=\"product\"\\} ")
                .doesNotContainPattern("product_projection_\\w+\\{[^}]*catalog=");
    }
}
