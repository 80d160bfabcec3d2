package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.ResolverApplication;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Leases and consumers belong to the token identity that took or registered them. Two consumer
 * tokens of one tenant: {@code c} and {@code c-acme}. Another consumer's lease cannot be exported, paged with,
 * renewed or released; listings show a consumer token only its own; reordering SECURITY_TOKENS transfers nothing.
 */
class OwnershipIT extends AbstractExportIT {

    @Autowired
    Environment env;

    @Test
    void anotherConsumersLeaseCannotBeExportedPagedRenewedOrReleased() {
        StreamId s = new StreamId("acme", "owned-lease");
        long head = writeItems(s, 35);
        Response taken = leaseAs("c", s);
        UUID leaseId = UUID.fromString(taken.text("leaseId"));
        assertThat(taken.number("pin")).isZero();

        Response export = startExport("c-acme", s, leaseId);
        assertThat(export.status()).as(export.raw()).isEqualTo(403);
        assertThat(export.code()).isEqualTo("FORBIDDEN");
        assertThat(pin(leaseId)).as("the pin of the owner's lease did not move").isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM snapshot_export").query(Long.class).single()).isZero();

        String page = "/v1/exports/events?tenant=acme&catalog=owned-lease&after=0&history_epoch=1&lease_id=" + leaseId;
        Response stolenPage = get(page, "c-acme");
        assertThat(stolenPage.status()).as(stolenPage.raw()).isEqualTo(403);
        assertThat(stolenPage.raw()).doesNotContain("sku-");
        assertThat(post("/v1/retention/leases/" + leaseId + "/renew", "c-acme", Map.of("ttlSeconds", 60)).status())
                .isEqualTo(403);
        assertThat(delete("/v1/retention/leases/" + leaseId, "c-acme").status()).isEqualTo(403);

        // the owner, and an operator, may
        Response own = get(page, "c");
        assertThat(own.status()).as(own.raw()).isEqualTo(200);
        assertThat(own.number("through")).isEqualTo(head);
        assertThat(get(page, "op").status()).isEqualTo(200);
        Response started = startExport("c", s, leaseId);
        assertThat(started.status()).as(started.raw()).isEqualTo(202);
        String exportId = started.text("exportId");
        awaitEnd(exportId);
        assertThat(get("/v1/exports/" + exportId, "c").status()).isEqualTo(200);
        assertThat(get("/v1/exports/" + exportId, "c-acme").status()).isEqualTo(403);
        assertThat(get("/v1/exports/" + exportId + "/manifest", "c-acme").status()).isEqualTo(403);
        assertThat(get("/v1/exports/" + exportId + "/manifest", "c").status()).isEqualTo(200);
        assertThat(post("/v1/retention/leases/" + leaseId + "/renew", "c", Map.of("ttlSeconds", 60)).status())
                .isEqualTo(200);
        assertThat(delete("/v1/retention/leases/" + leaseId, "c").status()).isEqualTo(204);
    }

    @Test
    void aConsumerTokenSeesOnlyItsOwnConsumersAndLeases() {
        StreamId s = new StreamId("acme", "owned-list");
        writeItems(s, 5);
        assertThat(register("c", "mine", s, "http://127.0.0.1:1/mine").status()).isEqualTo(201);
        assertThat(register("c-acme", "theirs", s, "http://127.0.0.1:1/theirs").status()).isEqualTo(201);
        String myLease = leaseAs("c", s).text("leaseId");
        String theirLease = leaseAs("c-acme", s).text("leaseId");

        Response seen = get("/v1/retention/streams/acme/owned-list", "c");
        assertThat(seen.status()).isEqualTo(200);
        assertThat(ids(seen.body().path("consumers"), "consumerId")).containsExactly("mine");
        assertThat(ids(seen.body().path("leases"), "leaseId")).containsExactly(myLease);
        assertThat(seen.raw()).doesNotContain("theirs").doesNotContain(theirLease);
        // the other token's consumer and lease still show as holding retention, without their ids
        assertThat(seen.body().path("blockedBy").findValuesAsString("kind")).contains("consumer", "lease");

        Response operator = get("/v1/retention/streams/acme/owned-list", "op");
        assertThat(ids(operator.body().path("consumers"), "consumerId")).containsExactlyInAnyOrder("mine", "theirs");
        assertThat(ids(operator.body().path("leases"), "leaseId")).containsExactlyInAnyOrder(myLease, theirLease);
        assertThat(operator.raw()).contains("http://127.0.0.1:1/theirs");
    }

    @Test
    void reorderingTheTokenListTransfersNothing() {
        StreamId s = new StreamId("acme", "owned-order");
        writeItems(s, 3);
        assertThat(register("c", "product-x", s, null).status()).isEqualTo(201);
        String leaseId = leaseAs("c", s).text("leaseId");
        // c-acme now takes the place c had; c moves to the end
        String reordered = "op=operator;w=writer;w-acme=writer@acme;r=relay;c-acme=consumer@acme;c=consumer";
        try (ConfigurableApplicationContext second = secondInstance(reordered)) {
            int port = Integer.parseInt(second.getEnvironment().getProperty("local.server.port"));
            assertThat(call(port, HttpMethod.POST, "/v1/retention/leases/" + leaseId + "/renew", "c-acme",
                    "{\"ttlSeconds\":60}")).isEqualTo(403);
            assertThat(call(port, HttpMethod.POST, "/v1/retention/consumers", "c-acme", "{\"consumerId\":\"product-x\","
                    + "\"tenant\":\"acme\",\"catalog\":\"owned-order\",\"epoch\":1}")).isEqualTo(403);
            assertThat(call(port, HttpMethod.POST, "/v1/retention/leases/" + leaseId + "/renew", "c",
                    "{\"ttlSeconds\":60}")).isEqualTo(200);
            assertThat(call(port, HttpMethod.POST, "/v1/retention/consumers", "c", "{\"consumerId\":\"product-x\","
                    + "\"tenant\":\"acme\",\"catalog\":\"owned-order\",\"epoch\":1}")).isEqualTo(201);
        }
    }

    @Test
    void positionalOwnersOfAnOlderReleaseAreAdoptedOnceForTheIdentityAtThatPosition() {
        StreamId s = new StreamId("acme", "owned-legacy");
        writeItems(s, 3);
        assertThat(register("c", "legacy", s, null).status()).isEqualTo(201);
        // as an older release wrote it: c was the fifth entry of the first instance's list
        jdbc.sql("UPDATE retention_consumer SET registered_by = 'token-5' WHERE consumer_id = 'legacy'").update();
        jdbc.sql("DELETE FROM token_identity_adoption").update();
        try (ConfigurableApplicationContext second = secondInstance(env.getProperty("security.tokens"))) {
            int port = Integer.parseInt(second.getEnvironment().getProperty("local.server.port"));
            assertThat(call(port, HttpMethod.PUT, "/v1/retention/consumers/legacy/progress", "c",
                    "{\"tenant\":\"acme\",\"catalog\":\"owned-legacy\",\"epoch\":1,\"position\":1}")).isEqualTo(200);
        }
        String reordered = "c-acme=consumer@acme;op=operator;w=writer;w-acme=writer@acme;r=relay;c=consumer";
        jdbc.sql("UPDATE retention_consumer SET registered_by = 'token-5' WHERE consumer_id = 'legacy'").update();
        try (ConfigurableApplicationContext second = secondInstance(reordered)) {
            int port = Integer.parseInt(second.getEnvironment().getProperty("local.server.port"));
            // adopted already: a later start adopts nothing, whatever the order (r is fifth now)
            assertThat(jdbc.sql("SELECT registered_by FROM retention_consumer WHERE consumer_id = 'legacy'")
                    .query(String.class).single()).isEqualTo("token-5");
            assertThat(call(port, HttpMethod.PUT, "/v1/retention/consumers/legacy/progress", "c",
                    "{\"tenant\":\"acme\",\"catalog\":\"owned-legacy\",\"epoch\":1,\"position\":2}")).isEqualTo(403);
        }
    }

    private Response leaseAs(String token, StreamId s) {
        Response r = post("/v1/retention/leases", token, Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "epoch", 1, "ttlSeconds", 300, "owner", "rebuild by " + token));
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r;
    }

    private Response register(String token, String consumerId, StreamId s, String deliveryUrl) {
        Map<String, Object> body = new java.util.HashMap<>(Map.of("consumerId", consumerId, "tenant", s.tenant(),
                "catalog", s.catalog(), "epoch", 1));
        if (deliveryUrl != null) {
            body.put("deliveryUrl", deliveryUrl);
        }
        return post("/v1/retention/consumers", token, body);
    }

    private long pin(UUID leaseId) {
        return jdbc.sql("SELECT pin FROM retention_lease WHERE lease_id = ?").params(leaseId).query(Long.class)
                .single();
    }

    private static List<String> ids(JsonNode array, String field) {
        return array.findValuesAsString(field);
    }

    private ConfigurableApplicationContext secondInstance(String tokens) {
        return new SpringApplicationBuilder(ResolverApplication.class).run(
                "--server.port=0", "--relay.enabled=false", "--retention.prune.enabled=false",
                "--retention.status.enabled=false", "--security.tokens=" + tokens,
                "--spring.datasource.url=" + env.getProperty("spring.datasource.url"),
                "--spring.datasource.username=" + env.getProperty("spring.datasource.username"),
                "--spring.datasource.password=" + env.getProperty("spring.datasource.password", ""),
                "--control.datasource.url=" + env.getProperty("control.datasource.url"),
                "--control.datasource.username=" + env.getProperty("control.datasource.username"),
                "--control.datasource.password=" + env.getProperty("control.datasource.password", ""),
                "--object.store.uri=" + env.getProperty("object.store.uri"));
    }

    private static int call(int port, HttpMethod method, String path, String token, String body) {
        return RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(code -> code.isError(), (req, res) -> { }).build()
                .method(method).uri(path).header("Authorization", "Bearer " + token)
                .contentType(MediaType.APPLICATION_JSON).body(body).retrieve().toBodilessEntity()
                .getStatusCode().value();
    }
}
