package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The write endpoints end to end: revisions, transactions, releases, the cursor, and stream independence. */
class StreamWriteIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    ObjectMapper json;

    @Test
    void multiChangeTransactionGetsContiguousPositionsAndOneTransactionId() {
        put("/v1/streams/acme/tx/items/pre", "{\"attributes\":{}}");
        JsonNode r = post("/v1/streams/acme/tx/transactions", """
                {"changes":[
                  {"op":"upsertItem","itemId":"a","attributes":{"name":"A"}},
                  {"op":"upsertItem","itemId":"b","attributes":{"name":"B"}},
                  {"op":"upsertMapping","mappingId":"m","source":"s","target":"t"},
                  {"op":"upsertPolicy","policyId":"p","rules":{"max":3}},
                  {"op":"putRelease","releaseId":"r","visibility":"PUBLIC",
                   "items":[{"itemId":"a","revision":1},{"itemId":"b","revision":1}]}
                ]}""");
        assertThat(r.path("firstPosition").longValue()).isEqualTo(2);
        assertThat(r.path("lastPosition").longValue()).isEqualTo(6);
        UUID tx = UUID.fromString(r.path("transactionId").stringValue());
        assertThat(UuidV7.isV7(tx)).isTrue();

        List<Map<String, Object>> rows = jdbc.sql("""
                SELECT position, transaction_id, transaction_ordinal, transaction_count FROM outbox
                 WHERE tenant = 'acme' AND catalog = 'tx' AND position BETWEEN 2 AND 6 ORDER BY position
                """).query().listOfRows();
        assertThat(rows).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(rows.get(i).get("transaction_id")).isEqualTo(tx);
            assertThat(rows.get(i).get("transaction_ordinal")).isEqualTo(i);
            assertThat(rows.get(i).get("transaction_count")).isEqualTo(5);
        }
        JsonNode release = json.readTree(jdbc.sql(
                "SELECT wire FROM outbox WHERE tenant = 'acme' AND catalog = 'tx' AND position = 6")
                .query(String.class).single());
        assertThat(release.path("dependsOn").toString())
                .isEqualTo("[{\"aggregateType\":\"item\",\"aggregateId\":\"a\",\"revision\":1},"
                        + "{\"aggregateType\":\"item\",\"aggregateId\":\"b\",\"revision\":1}]");
    }

    @Test
    void revisionsAdvanceAndDependOnTheirPredecessor() {
        assertThat(put("/v1/streams/acme/rev/items/x", "{\"attributes\":{\"v\":1}}").path("revision").intValue())
                .isEqualTo(1);
        assertThat(put("/v1/streams/acme/rev/items/x", "{\"attributes\":{\"v\":2},\"expectedRevision\":1}")
                .path("revision").intValue()).isEqualTo(2);
        JsonNode del = json.readTree(client("w").delete().uri("/v1/streams/acme/rev/items/x").retrieve()
                .body(String.class));
        assertThat(del.path("revision").intValue()).isEqualTo(3);
        assertThat(put("/v1/streams/acme/rev/items/x", "{\"attributes\":{\"v\":4}}").path("revision").intValue())
                .isEqualTo(4);
        List<Map<String, Object>> revs = jdbc.sql("""
                SELECT revision, deleted, position FROM accepted_revision
                 WHERE tenant = 'acme' AND catalog = 'rev' AND aggregate_id = 'x' ORDER BY revision
                """).query().listOfRows();
        assertThat(revs).extracting(m -> m.get("deleted")).containsExactly(false, false, true, false);
        assertThat(revs).extracting(m -> ((Number) m.get("position")).longValue()).containsExactly(1L, 2L, 3L, 4L);
        JsonNode last = json.readTree(jdbc.sql(
                "SELECT wire FROM outbox WHERE tenant = 'acme' AND catalog = 'rev' AND position = 4")
                .query(String.class).single());
        assertThat(last.path("dependsOn").get(0).path("revision").intValue()).isEqualTo(3);

        JsonNode cursor = json.readTree(client("op").get().uri("/v1/streams/acme/rev/cursor").retrieve()
                .body(String.class));
        assertThat(cursor.path("epoch").longValue()).isEqualTo(1);
        assertThat(cursor.path("position").longValue()).isEqualTo(4);
        assertThat(cursor.path("chainDigest").stringValue()).isEqualTo(jdbc.sql(
                "SELECT chain_digest FROM outbox WHERE tenant = 'acme' AND catalog = 'rev' AND position = 4")
                .query(String.class).single());
        assertThat(cursor.path("prunedThrough").longValue()).isZero();
    }

    @Test
    void aStreamHeldLockedDoesNotDelayAnotherStream() throws Exception {
        put("/v1/streams/acme/held/items/x", "{\"attributes\":{}}");
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT position FROM stream_cursor "
                    + "WHERE tenant = 'acme' AND catalog = 'held' FOR UPDATE");

            CompletableFuture<JsonNode> blocked = CompletableFuture.supplyAsync(
                    () -> put("/v1/streams/acme/held/items/y", "{\"attributes\":{}}"));
            long t0 = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                put("/v1/streams/acme/free/items/i" + i, "{\"attributes\":{}}");
            }
            long freeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(blocked).as("the held stream waits for its lock").isNotDone();
            assertThat(freeMillis).as("20 writes of the free stream while the other is locked").isLessThan(10_000);
            holder.rollback();
            assertThat(blocked.get(10, TimeUnit.SECONDS).path("position").longValue()).isEqualTo(2);
        }
    }

    private JsonNode put(String path, String body) {
        return json.readTree(client("w").put().uri(path).header("Content-Type", "application/json").body(body)
                .retrieve().body(String.class));
    }

    private JsonNode post(String path, String body) {
        return json.readTree(client("w").post().uri(path).header("Content-Type", "application/json").body(body)
                .retrieve().body(String.class));
    }
}
