package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** GET /v1/retention/streams/{tenant}/{catalog}: blockedBy names exactly what holds retention, by position. */
class RetentionStatusIT extends AbstractRetentionIT {

    @Test
    void blockedByNamesEveryConsumerLeaseUnpublishedEventAndGapWithTheirPositions() {
        StreamId s = new StreamId("acme", "st-blocked");
        write(s, 12);
        publishThrough(s, 2);
        prune(s);
        register("c", "behind", s, 1);
        progress("c", "behind", s, 1, 5);
        register("c", "current", s, 1);
        progress("c", "current", s, 1, 12);
        Response lease = lease("c", s, 1, 300);
        UUID leaseId = UUID.fromString(lease.text("leaseId"));
        retention.advancePin(leaseId, 4);
        jdbc.sql("DELETE FROM outbox WHERE tenant = 'acme' AND catalog = 'st-blocked' AND position = 11").update();
        publishThrough(s, 8);
        String unpublishedEvent = jdbc.sql("SELECT event_id::text FROM outbox WHERE tenant = 'acme' "
                + "AND catalog = 'st-blocked' AND position = 9").query(String.class).single();

        Response st = get("/v1/retention/streams/acme/st-blocked", "op");
        assertThat(st.status()).isEqualTo(200);
        assertThat(st.number("epoch")).isEqualTo(1);
        assertThat(st.number("cursor")).isEqualTo(12);
        assertThat(st.number("prunedThrough")).isEqualTo(2);
        assertThat(st.number("retainedEvents")).isEqualTo(9);
        assertThat(blockers(st.body())).containsExactly(
                "lease:" + leaseId + ":4",
                "consumer:behind:5",
                "unpublished:" + unpublishedEvent + ":9",
                "gap:null:11");
        assertThat(st.number("pruneableThrough")).isEqualTo(4);
        assertThat(st.body().path("consumers")).hasSize(2);
        assertThat(st.body().path("consumers").get(0).path("consumerId").stringValue()).isEqualTo("behind");
        assertThat(st.body().path("consumers").get(0).path("lagEvents").asLong()).isEqualTo(7);
        assertThat(st.body().path("leases").get(0).path("pin").asLong()).isEqualTo(4);

        Response pruned = post("/v1/retention/prune", "op", java.util.Map.of("tenant", "acme", "catalog", "st-blocked"));
        assertThat(pruned.number("pruned")).isEqualTo(2);
        assertThat(pruned.number("prunedThrough")).isEqualTo(4);
        assertThat(blockers(pruned.body())).first().isEqualTo("lease:" + leaseId + ":4");

        retention.release(leaseId);
        delete("/v1/retention/consumers/behind", "op");
        assertThat(blockers(get("/v1/retention/streams/acme/st-blocked", "c").body()))
                .containsExactly("unpublished:" + unpublishedEvent + ":9", "gap:null:11");
    }

    @Test
    void nothingIsBlockedWhenEverythingIsPruned() {
        StreamId s = new StreamId("acme", "st-clear");
        write(s, 3);
        register("c", "done", s, 1);
        progress("c", "done", s, 1, 3);
        publishThrough(s, 3);
        prune(s);
        Response st = get("/v1/retention/streams/acme/st-clear", "op");
        assertThat(st.number("prunedThrough")).isEqualTo(3);
        assertThat(st.number("retainedEvents")).isZero();
        assertThat(st.body().path("blockedBy")).isEmpty();
    }

    @Test
    void statusOfAnOlderEpochAndOfUnknownStreams() {
        StreamId s = new StreamId("acme", "st-epochs");
        write(s, 4);
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = 'acme' AND catalog = 'st-epochs'").update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES ('acme', 'st-epochs', 2)").update();
        assertThat(get("/v1/retention/streams/acme/st-epochs", "op").number("epoch")).isEqualTo(2);
        Response old = get("/v1/retention/streams/acme/st-epochs?epoch=1", "op");
        assertThat(old.number("cursor")).isEqualTo(4);
        assertThat(blockers(old.body())).containsExactly("unpublished:" + jdbc.sql("SELECT event_id::text FROM outbox "
                + "WHERE catalog = 'st-epochs' AND position = 1").query(String.class).single() + ":1");
        assertThat(get("/v1/retention/streams/acme/st-epochs?epoch=3", "op").status()).isEqualTo(404);
        Response unknown = get("/v1/retention/streams/acme/never-written", "op");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.code()).isEqualTo("NOT_FOUND");
    }

    static List<String> blockers(JsonNode body) {
        List<String> out = new ArrayList<>();
        for (JsonNode b : body.path("blockedBy")) {
            String id = b.path("id").isNull() ? "null" : b.path("id").stringValue();
            out.add(b.path("kind").stringValue() + ":" + id + ":" + b.path("position").asLong());
        }
        return out;
    }
}
