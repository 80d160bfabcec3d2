package com.acme.catalog.product.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Maintenance mode of the product: a row that pauses the live inbox (503 MAINTENANCE to the relay, nothing applied),
 * everything else that changes what a stream serves (the serving lock, which the recovery worker's catch-up takes
 * too) and public serving, until it is turned off; the switch answers only after a delivery in flight committed.
 */
class ProductMaintenanceIT extends ProductIT {

    @Autowired
    DataSource dataSource;
    @Autowired
    GenerationRepository generations;
    @Autowired
    TransactionTemplate tx;

    @AfterEach
    void off() {
        maintenance(false);
    }

    @Test
    void maintenancePausesDeliveriesThePublicCatalogAndTheServingLock() {
        StreamId s = new StreamId("acme", "m-pause");
        List<Event> chain = chain(s);
        assertThat(deliver("r", List.of(chain.get(0).delivered(), chain.get(1).delivered())).getStatusCode()
                .value()).isEqualTo(200);
        assertThat(publicItem(s).getStatusCode().value()).isEqualTo(200);

        JsonNode on = maintenance(true);
        assertThat(on.path("enabled").booleanValue()).isTrue();
        assertThat(on.path("since").isString()).isTrue();
        assertThat(admin("GET", null, "op").getBody().path("enabled").booleanValue()).isTrue();

        ResponseEntity<JsonNode> refused = deliver("r", List.of(chain.get(2).delivered()));
        assertThat(refused.getStatusCode().value()).isEqualTo(503);
        assertThat(refused.getBody().path("code").stringValue()).isEqualTo("MAINTENANCE");
        assertThat(new Projections(jdbc).cursor(s)[0]).as("nothing applied").isEqualTo(2);
        ResponseEntity<JsonNode> item = publicItem(s);
        assertThat(item.getStatusCode().value()).isEqualTo(503);
        assertThat(item.getBody().path("code").stringValue()).isEqualTo("MAINTENANCE");
        assertThat(noRetry(null).get().uri("/v1/catalog/acme/m-pause/search?q=glove").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(503);
        // the recovery worker's catch-up pages and a rebuild's cutover take this same lock
        assertThatThrownBy(() -> tx.execute(st -> generations.lockServing(s)))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(
                        ProblemCode.MAINTENANCE));

        maintenance(false);
        assertThat(deliver("r", List.of(chain.get(2).delivered())).getBody().path("contiguousPosition").asLong())
                .isEqualTo(3);
        assertThat(publicItem(s).getStatusCode().value()).isEqualTo(200);
    }

    @Test
    void onlyAnOperatorSwitchesIt() {
        assertThat(admin("POST", "{\"enabled\":true}", "r").getStatusCode().value()).isEqualTo(403);
        assertThat(admin("POST", "{\"enabled\":true}", null).getStatusCode().value()).isEqualTo(401);
        assertThat(admin("POST", "{\"enabled\":\"true\"}", "op").getBody().path("code").stringValue())
                .isEqualTo("INVALID_BODY");
        assertThat(jdbc.sql("SELECT enabled FROM maintenance_mode").query(Boolean.class).single()).isFalse();
    }

    /**
     * A delivery holds past its check (the test locks the serving generation's row it waits for): the switch waits
     * for it and the delivery is applied when the switch answers. Fails without the hold in the serving lock.
     */
    @Test
    void theSwitchWaitsForADeliveryInFlight() throws Exception {
        StreamId s = new StreamId("acme", "m-inflight");
        List<Event> chain = chain(s);
        deliver("r", List.of(chain.get(0).delivered()));
        long generation = new Projections(jdbc).servingGeneration(s);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (Statement st = blocker.createStatement()) {
                st.execute("SELECT 1 FROM generation WHERE generation_id = " + generation + " FOR UPDATE");
            }
            Future<ResponseEntity<JsonNode>> delivery = pool.submit(() -> deliver("r",
                    List.of(chain.get(1).delivered())));
            await().atMost(Duration.ofSeconds(10)).until(this::deliveriesWaitingForALock);
            Future<Long> switched = pool.submit(() -> {
                maintenance(true);
                return new Projections(jdbc).cursor(s)[0];
            });
            try {
                switched.get(1500, TimeUnit.MILLISECONDS);
                throw new AssertionError("the switch answered while a delivery that passed the check was in flight");
            } catch (TimeoutException expected) {
                // waiting for the delivery
            }
            blocker.rollback();
            assertThat(delivery.get(10, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
            assertThat(switched.get(10, TimeUnit.SECONDS)).as("applied when the switch answered").isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
        assertThat(deliver("r", List.of(chain.get(2).delivered())).getStatusCode().value()).isEqualTo(503);
    }

    private boolean deliveriesWaitingForALock() {
        return jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock' AND query LIKE '%serving_generation%'").query(Long.class).single() > 0;
    }

    private static List<Event> chain(StreamId s) {
        CatalogHistory h = new CatalogHistory(new Random(7));
        return new ChainWriter(s, 1, new Random(7)).appendAll(List.of(
                h.upsertItem("sku-1", CatalogHistory.attributes("Classic glove", 10, "black")),
                h.putRelease("spring", "PUBLIC", Map.of("sku-1", 1)),
                h.upsertItem("sku-2", CatalogHistory.attributes("Winter glove", 12, "red"))));
    }

    private ResponseEntity<JsonNode> publicItem(StreamId s) {
        return noRetry(null).get().uri("/v1/catalog/" + s.tenant() + "/" + s.catalog() + "/items/sku-1").retrieve()
                .toEntity(JsonNode.class);
    }

    private JsonNode maintenance(boolean enabled) {
        ResponseEntity<JsonNode> r = admin("POST", "{\"enabled\":" + enabled + "}", "op");
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        return r.getBody();
    }

    private ResponseEntity<JsonNode> admin(String method, String body, String token) {
        RestClient c = noRetry(token);
        if (method.equals("GET")) {
            return c.get().uri("/v1/admin/maintenance").retrieve().toEntity(JsonNode.class);
        }
        return c.post().uri("/v1/admin/maintenance").contentType(MediaType.APPLICATION_JSON).body(body).retrieve()
                .toEntity(JsonNode.class);
    }

    /** Apache HttpClient would repeat a GET answered 503 by itself; these tests count each request. */
    private RestClient noRetry(String token) {
        RestClient.Builder b = RestClient.builder().baseUrl("http://localhost:" + port)
                .requestFactory(new HttpComponentsClientHttpRequestFactory(
                        HttpClients.custom().disableAutomaticRetries().build()))
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (token != null) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }
}
