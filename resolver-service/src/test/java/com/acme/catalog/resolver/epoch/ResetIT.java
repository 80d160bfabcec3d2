package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /v1/streams/{t}/{c}/reset}: a new epoch that starts empty. The old epoch is fenced as by a rotation and
 * its positions are never used again; the new epoch serves, exports and checksums the empty state; the history
 * records the reason and a start from nothing; a stream whose revisions decisions cite is refused; the bootstrap
 * import's seam resets under its fence without maintenance.
 */
class ResetIT extends EpochIT {

    @Autowired
    private StreamReset resets;

    @AfterEach
    void off() {
        maintenance(false);
    }

    @Test
    void aResetNeedsMaintenanceAndChangesNothingWithout() {
        writeItems("acme", "reset-no-maint", 2);
        Response r = reset("acme", "reset-no-maint", "retry");
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("MAINTENANCE_REQUIRED");
        assertThat(get("/v1/epochs/acme/reset-no-maint", "op").body().path("history")).hasSize(1);
        assertThat(items("reset-no-maint")).isEqualTo(2);
    }

    @Test
    void aResetStartsAnEmptyEpochAndNeverReusesAnOldPosition() {
        String c = "reset-full";
        writeItems("acme", c, 3);
        assertThat(put("/v1/streams/acme/" + c + "/mappings/m1", "w", Map.of("source", "a", "target", "b")).status())
                .isEqualTo(200);
        assertThat(put("/v1/streams/acme/" + c + "/policies/p1", "w", Map.of("rules", Map.of("x", 1))).status())
                .isEqualTo(200);
        assertThat(put("/v1/streams/acme/" + c + "/releases/r1", "w", Map.of("visibility", "PUBLIC", "items",
                List.of(Map.of("itemId", "sku-0", "revision", 1)))).status()).isEqualTo(200);
        assertThat(post("/v1/retention/consumers", "c", Map.of("consumerId", "p", "tenant", "acme", "catalog", "*"))
                .status()).isEqualTo(201);
        JsonNode before = get("/v1/streams/acme/" + c + "/cursor", "op").body();
        assertThat(before.path("position").asLong()).isEqualTo(6);
        List<String> oldEvents = outbox(c, 1);

        maintenance(true);
        Response r = reset("acme", c, "bootstrap import failed; retrying");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.raw()).isEqualTo("{\"epoch\":2}");

        JsonNode history = get("/v1/epochs/acme/" + c, "op").body().path("history");
        assertThat(history).hasSize(2);
        assertThat(history.get(1).path("reason").stringValue()).isEqualTo("bootstrap import failed; retrying");
        JsonNode starts = history.get(1).path("startsFrom");
        assertThat(starts.path("epoch").isNull()).as(starts.toString()).isTrue();
        assertThat(starts.path("position").asLong()).isZero();
        assertThat(starts.path("chainDigest").stringValue()).isEqualTo(ChainDigest.ZERO);
        assertThat(starts.path("empty").asBoolean()).isTrue();

        JsonNode cursor = get("/v1/streams/acme/" + c + "/cursor", "op").body();
        assertThat(cursor.path("epoch").asLong()).isEqualTo(2);
        assertThat(cursor.path("position").asLong()).isZero();
        assertThat(cursor.path("chainDigest").stringValue()).isEqualTo(ChainDigest.ZERO);
        // the state the new epoch serves, exports and checksums is the empty state's, under both profiles
        for (String profile : List.of("accepted-state-v1", "public-view-v1")) {
            JsonNode reset = get("/v1/streams/acme/" + c + "/state-checksum?profile=" + profile, "op").body();
            JsonNode empty = get("/v1/streams/acme/never-written/state-checksum?profile=" + profile, "op").body();
            assertThat(reset.path("tables")).as(profile).isEqualTo(empty.path("tables"));
            assertThat(reset.path("epoch").asLong()).isEqualTo(2);
        }
        assertThat(jdbc.sql("SELECT count(*) FROM accepted_revision WHERE catalog = ?").params(c).query(Long.class)
                .single()).isZero();
        // the old epoch is fenced at its position and its events stay as they were, in epoch 1
        assertThat(jdbc.sql("SELECT epoch || ':' || position || ':' || (fenced_at IS NOT NULL) FROM stream_cursor "
                + "WHERE catalog = ? ORDER BY epoch").params(c).query(String.class).list())
                .containsExactly("1:6:true", "2:0:false");
        assertThat(outbox(c, 1)).isEqualTo(oldEvents);
        // subscribers are registered in the new epoch, as after a rotation
        assertThat(jdbc.sql("SELECT epoch || ':' || durable_position FROM retention_consumer WHERE consumer_id = 'p' "
                + "AND catalog = ?").params(c).query(String.class).single()).isEqualTo("2:0");

        maintenance(false);
        Response again = putItem("acme", c, "sku-0");
        assertThat(again.number("epoch")).isEqualTo(2);
        assertThat(again.number("position")).isEqualTo(1);
        assertThat(again.number("revision")).isEqualTo(1);
        assertThat(outbox(c, 1)).isEqualTo(oldEvents);
    }

    @Test
    void aStreamWhoseRevisionsDecisionsCiteIsNotReset() {
        String c = "reset-decided";
        writeItems("acme", c, 1);
        UUID caseId = UUID.randomUUID();
        UUID decision = UUID.randomUUID();
        jdbc.sql("INSERT INTO review_case (case_id, tenant, catalog, changes, created_by) VALUES (?, 'acme', ?, '[]', "
                + "'w')").params(caseId, c).update();
        jdbc.sql("INSERT INTO review_decision (decision_id, case_id, tenant, catalog, decision, reviewer, reason, "
                + "epoch, first_position, last_position, transaction_id, decided_by) VALUES (?, ?, 'acme', ?, "
                + "'ACCEPT', 'r', 'ok', 1, 1, 1, ?, 'w')").params(decision, caseId, c, UUID.randomUUID()).update();
        jdbc.sql("INSERT INTO decision_revision (tenant, catalog, aggregate_type, aggregate_id, revision, decision_id) "
                + "VALUES ('acme', ?, 'item', 'sku-0', 1, ?)").params(c, decision).update();

        maintenance(true);
        Response r = reset("acme", c, "retry");
        assertThat(r.status()).as(r.raw()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("STREAM_HAS_DECISIONS");
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE catalog = ?").params(c).query(Long.class)
                .single()).isEqualTo(1);
        assertThat(items(c)).isEqualTo(1);
        // a rotation keeps the state, so it is not refused
        assertThat(rotate("acme", c, "restore").status()).isEqualTo(200);
    }

    @Test
    void theImportFencesSeamResetsWithoutMaintenanceOnlyWhileTheFenceIsHeld() {
        String c = "reset-fenced";
        StreamId s = new StreamId("acme", c);
        writeItems("acme", c, 2);
        assertThatThrownBy(() -> resets.resetUnderImportFence(s, "retry", "importer", () -> {
            throw new ApiException(ProblemCode.IMPORT_IN_PROGRESS, "the fence is gone");
        })).isInstanceOf(ApiException.class).hasMessageContaining("the fence is gone");
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE catalog = ?").params(c).query(Long.class)
                .single()).isEqualTo(1);
        assertThat(items(c)).isEqualTo(2);

        int[] checked = new int[1];
        assertThat(resets.resetUnderImportFence(s, "retry", "importer", () -> checked[0]++)).isEqualTo(2);
        assertThat(checked[0]).isEqualTo(1);
        assertThat(items(c)).isZero();
        assertThat(get("/v1/streams/acme/" + c + "/cursor", "op").number("epoch")).isEqualTo(2);
        assertThatThrownBy(() -> resets.reset(s, "again", "op")).isInstanceOf(ApiException.class)
                .extracting(e -> ((ApiException) e).code()).isEqualTo(ProblemCode.MAINTENANCE_REQUIRED);
    }

    @Test
    void badResetRequestsChangeNothing() {
        String c = "reset-bad";
        writeItems("acme", c, 1);
        maintenance(true);
        String path = "/v1/streams/acme/" + c + "/reset";
        for (Object body : List.of("{}", "{\"reason\":\"\"}", "{\"reason\":42}", "[]", "nope")) {
            Response r = post(path, "op", body);
            assertThat(r.status()).as(String.valueOf(body)).isEqualTo(400);
            assertThat(r.code()).as(String.valueOf(body)).isEqualTo("INVALID_BODY");
        }
        assertThat(post(path, "w", Map.of("reason", "x")).code()).isEqualTo("FORBIDDEN");
        assertThat(post(path, null, Map.of("reason", "x")).code()).isEqualTo("UNAUTHENTICATED");
        assertThat(post("/v1/streams/acme/Bad/reset", "op", Map.of("reason", "x")).code()).isEqualTo("INVALID_ID");
        assertThat(items(c)).isEqualTo(1);
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE catalog = ?").params(c).query(Long.class)
                .single()).isEqualTo(1);
    }

    private Response reset(String tenant, String catalog, String reason) {
        return post("/v1/streams/" + tenant + "/" + catalog + "/reset", "op", Map.of("reason", reason));
    }

    private long items(String catalog) {
        return jdbc.sql("SELECT count(*) FROM item WHERE catalog = ?").params(catalog).query(Long.class).single();
    }

    private List<String> outbox(String catalog, long epoch) {
        return jdbc.sql("SELECT position || ':' || event_id || ':' || chain_digest FROM outbox WHERE catalog = ? "
                + "AND epoch = ? ORDER BY position").params(catalog, epoch).query(String.class).list();
    }
}
