package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;

/**
 * Pattern subscriptions (docs/retention.md "Subscriptions"): the consumer is registered at position 0 of every
 * matching stream that exists, of each stream's first write, and of each new epoch; deregistration ends it; a
 * tenant-limited token subscribes to its tenants only. And {@code GET /v1/streams}, paged and tenant-scoped.
 */
class SubscriptionIT extends AbstractRetentionIT {

    private static final String URL = "http://127.0.0.1:9/v1/inbox/events";

    private Response subscribe(String token, String consumerId, String tenant) {
        return post("/v1/retention/consumers", token,
                Map.of("consumerId", consumerId, "tenant", tenant, "catalog", "*", "deliveryUrl", URL));
    }

    private List<Map<String, Object>> registrations(String consumerId) {
        return jdbc.sql("SELECT tenant || '/' || catalog AS stream, epoch, durable_position, delivery_url "
                + "FROM retention_consumer WHERE consumer_id = ? ORDER BY tenant, catalog")
                .params(consumerId).query().listOfRows();
    }

    @Test
    void aTenantSubscriptionRegistersExistingStreamsAndEachNewStreamWithItsFirstWrite() {
        write(new StreamId("sub-a", "one"), 3);
        write(new StreamId("sub-b", "other"), 2);

        Response r = subscribe("c", "sub-product", "sub-a");
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.number("streams")).isEqualTo(1);
        assertThat(r.number("durablePosition")).isZero();
        assertThat(registrations("sub-product")).extracting(m -> m.get("stream")).containsExactly("sub-a/one");

        // a new stream of the tenant: registered in the very transaction of its first write, at 0
        write(new StreamId("sub-a", "two"), 1);
        write(new StreamId("sub-b", "two"), 1);
        assertThat(registrations("sub-product")).extracting(m -> m.get("stream"))
                .containsExactly("sub-a/one", "sub-a/two");
        assertThat(registrations("sub-product")).allSatisfy(m -> {
            assertThat(m.get("durable_position")).isEqualTo(0L);
            assertThat(m.get("delivery_url")).isEqualTo(URL);
        });

        // it holds retention from position 1 of the new stream
        StreamId two = new StreamId("sub-a", "two");
        publishThrough(two, 1);
        prune(two);
        assertThat(outboxPositions(two)).containsExactly(1L);
    }

    @Test
    void anAllTenantsSubscriptionNeedsATokenOfEveryTenant() {
        write(new StreamId("acme", "sub-all"), 1);
        Response limited = subscribe("c-acme", "sub-limited", "*");
        assertThat(limited.status()).isEqualTo(403);
        assertThat(limited.code()).isEqualTo("FORBIDDEN");
        Response otherTenant = subscribe("c-acme", "sub-limited", "sub-z");
        assertThat(otherTenant.status()).isEqualTo(403);
        assertThat(registrations("sub-limited")).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM retention_subscription WHERE consumer_id = 'sub-limited'")
                .query(Long.class).single()).isZero();

        assertThat(subscribe("c-acme", "sub-limited", "acme").status()).isEqualTo(201);
        Response all = subscribe("c", "sub-every", "*");
        assertThat(all.status()).isEqualTo(201);
        assertThat(all.number("streams")).isGreaterThanOrEqualTo(1);
        write(new StreamId("sub-new-tenant", "x"), 1);
        assertThat(registrations("sub-every")).extracting(m -> m.get("stream")).contains("sub-new-tenant/x");
        assertThat(registrations("sub-limited")).extracting(m -> m.get("stream")).doesNotContain("sub-new-tenant/x");
    }

    @Test
    void aSubscriptionWithAnEpochOrABadTenantIsRefusedAndWritesNothing() {
        String before = fingerprint();
        Response withEpoch = post("/v1/retention/consumers", "c", Map.of("consumerId", "sub-bad", "tenant", "acme",
                "catalog", "*", "epoch", 1, "deliveryUrl", URL));
        assertThat(withEpoch.status()).isEqualTo(400);
        Response badTenant = subscribe("c", "sub-bad", "Not_A_Tenant");
        assertThat(badTenant.status()).isEqualTo(400);
        assertThat(badTenant.code()).isEqualTo("INVALID_ID");
        Response anyTenantOneCatalog = post("/v1/retention/consumers", "c", Map.of("consumerId", "sub-bad",
                "tenant", "*", "catalog", "shoes", "epoch", 1));
        assertThat(anyTenantOneCatalog.status()).isEqualTo(400);
        Response badUrl = post("/v1/retention/consumers", "c", Map.of("consumerId", "sub-bad", "tenant", "acme",
                "catalog", "*", "deliveryUrl", "http://elsewhere.example/inbox"));
        assertThat(badUrl.status()).isEqualTo(400);
        assertThat(fingerprint()).isEqualTo(before);
        assertThat(jdbc.sql("SELECT count(*) FROM retention_subscription WHERE consumer_id = 'sub-bad'")
                .query(Long.class).single()).isZero();
    }

    @Test
    void aRotationRegistersTheSubscriberAtPositionZeroOfTheNewEpoch() {
        StreamId s = new StreamId("sub-rot", "shoes");
        write(s, 2);
        assertThat(subscribe("c", "sub-rotating", "sub-rot").status()).isEqualTo(201);
        jdbc.sql("UPDATE retention_consumer SET durable_position = 2 WHERE consumer_id = 'sub-rotating'").update();

        assertThat(post("/v1/admin/maintenance", "op", Map.of("enabled", true)).status()).isEqualTo(200);
        Response rotated = post("/v1/epochs/sub-rot/shoes/rotate", "op", Map.of("reason", "test restore"));
        assertThat(rotated.status()).isEqualTo(200);
        assertThat(post("/v1/admin/maintenance", "op", Map.of("enabled", false)).status()).isEqualTo(200);

        assertThat(registrations("sub-rotating")).singleElement().satisfies(m -> {
            assertThat(m.get("epoch")).isEqualTo(2L);
            assertThat(m.get("durable_position")).isEqualTo(0L);
        });
    }

    @Test
    void deregisteringEndsTheSubscription() {
        write(new StreamId("sub-d", "one"), 1);
        assertThat(subscribe("c", "sub-leaving", "sub-d").status()).isEqualTo(201);
        assertThat(delete("/v1/retention/consumers/sub-leaving", "op").status()).isEqualTo(204);
        write(new StreamId("sub-d", "two"), 1);
        assertThat(registrations("sub-leaving")).isEmpty();
        // a subscription without any stream yet is deregistered too
        assertThat(subscribe("c", "sub-early", "sub-none").status()).isEqualTo(201);
        assertThat(delete("/v1/retention/consumers/sub-early", "op").status()).isEqualTo(204);
        assertThat(delete("/v1/retention/consumers/sub-early", "op").status()).isEqualTo(404);
    }

    @Test
    void streamsArePagedInOrderAndScopedToTheTokensTenants() {
        for (String c : List.of("a", "b", "c", "d", "e")) {
            write(new StreamId("list-x", c), 1);
        }
        write(new StreamId("acme", "list-y"), 2);

        Response first = get("/v1/streams?tenant=list-x&limit=2", "op");
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().path("streams")).hasSize(2);
        assertThat(first.text("next")).isEqualTo("list-x/b");
        Response second = get("/v1/streams?tenant=list-x&limit=2&after=" + first.text("next"), "op");
        assertThat(second.body().path("streams").get(0).path("catalog").asString()).isEqualTo("c");
        Response last = get("/v1/streams?tenant=list-x&limit=2&after=list-x/d", "op");
        assertThat(last.body().path("streams")).hasSize(1);
        assertThat(last.body().has("next")).isFalse();
        var e = last.body().path("streams").get(0);
        assertThat(e.path("epoch").asLong()).isEqualTo(1);
        assertThat(e.path("cursor").asLong()).isEqualTo(1);
        assertThat(e.path("chainDigest").asString()).hasSize(64);
        assertThat(e.path("prunedThrough").asLong()).isZero();
        assertThat(e.path("currentEpoch").asLong()).as("the control store's").isEqualTo(1);
        assertThat(e.path("rolledBack").booleanValue()).isFalse();
        assertThat(e.has("rolledBackAt")).isFalse();
        assertThat(get("/v1/streams?tenant=list-x&rolledBack=true", "op").body().path("streams")).isEmpty();
        assertThat(get("/v1/streams?rolledBack=yes", "op").status()).isEqualTo(400);

        Response limited = get("/v1/streams?limit=5000", "c-acme");
        assertThat(limited.status()).isEqualTo(200);
        assertThat(limited.body().path("streams").valueStream().map(n -> n.path("tenant").asString()).distinct())
                .containsExactly("acme");
        assertThat(get("/v1/streams?tenant=list-x", "c-acme").status()).isEqualTo(403);
        assertThat(get("/v1/streams", "w").status()).isEqualTo(403);
        assertThat(get("/v1/streams?limit=0", "op").status()).isEqualTo(400);
        assertThat(get("/v1/streams?after=nope", "op").status()).isEqualTo(400);
    }
}
