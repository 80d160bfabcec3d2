package com.acme.catalog.product.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.PublicViewChecksum;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ExpectedProjection;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * The projection checksum equals the {@code accepted-state-v1} profile computed independently from the chain the
 * product applied (the last revision of each aggregate, as the resolver's accepted state holds it).
 */
class ProjectionChecksumIT extends ProductIT {

    @Test
    void checksumOfTheServingGenerationEqualsTheProfileOfTheAppliedHistory() {
        StreamId stream = new StreamId("acme", "checksum");
        ChainWriter chain = new ChainWriter(stream, 1, new Random(21));
        List<ChainWriter.Event> events = chain.appendAll(new CatalogHistory(new Random(22)).random(300));
        for (int i = 0; i < events.size(); i += 50) {
            List<String> batch = events.subList(i, Math.min(events.size(), i + 50)).stream()
                    .map(ChainWriter.Event::delivered).toList();
            ResponseEntity<JsonNode> r = deliver("r", batch);
            assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        }

        JsonNode body = checksum("op", "checksum");
        assertThat(body.get("profile").stringValue()).isEqualTo(AcceptedStateChecksum.PROFILE);
        assertThat(body.get("epoch").longValue()).isEqualTo(1);
        assertThat(body.get("position").longValue()).isEqualTo(events.size());
        Map<Table, TableChecksum> expected = expected(events);
        for (Table t : Table.values()) {
            assertThat(body.get("tables").get(t.name()).get("rows").longValue()).as(t.name())
                    .isEqualTo(expected.get(t).rows());
            assertThat(body.get("tables").get(t.name()).get("sha256").stringValue()).as(t.name())
                    .isEqualTo(expected.get(t).sha256());
        }
        assertThat(expected.get(Table.items).rows()).isPositive();
        assertThat(expected.get(Table.releases).rows()).isPositive();
    }

    /** public-view-v1 is what the public endpoints serve, and equals the oracle's public view of the history. */
    @Test
    void publicViewChecksumEqualsTheOracleOfTheAppliedHistory() {
        StreamId stream = new StreamId("acme", "view");
        List<ChainWriter.Event> events = new ChainWriter(stream, 1, new Random(31))
                .appendAll(new CatalogHistory(new Random(32)).random(400));
        for (int i = 0; i < events.size(); i += 40) {
            ResponseEntity<JsonNode> r = deliver("r", events.subList(i, Math.min(events.size(), i + 40)).stream()
                    .map(ChainWriter.Event::delivered).toList());
            assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        }
        ExpectedProjection oracle = ExpectedProjection.of(events);
        assertThat(oracle.publicItems).hasSizeGreaterThan(3);
        Accumulator acc = new Accumulator(PublicViewChecksum.TABLE, PublicViewChecksum.COLUMNS);
        oracle.publicRows().forEach(row -> acc.row(row[0], row[1], row[2], jsonb((String) row[3])));
        TableChecksum expected = acc.finish();

        JsonNode body = checksum("op", "view", "public-view-v1");
        assertThat(body.get("profile").stringValue()).isEqualTo("public-view-v1");
        assertThat(body.get("position").longValue()).isEqualTo(events.size());
        assertThat(body.get("tables").get("publicItems").get("rows").longValue()).isEqualTo(expected.rows());
        assertThat(body.get("tables").get("publicItems").get("sha256").stringValue()).isEqualTo(expected.sha256());
        assertThat(checksum("op", "view", "accepted-state-v1").get("tables")).isEqualTo(
                checksum("op", "view", null).get("tables"));
        ResponseEntity<JsonNode> bad = client("op").get().uri("/v1/streams/acme/view/projection-checksum?profile=x")
                .retrieve().toEntity(JsonNode.class);
        assertThat(bad.getStatusCode().value()).isEqualTo(400);
        assertThat(bad.getBody().get("code").stringValue()).isEqualTo("INVALID_BODY");
    }

    @Test
    void aStreamWithoutGenerationIsEmptyAndTokensAreChecked() {
        JsonNode body = checksum("c", "nothing");
        assertThat(body.get("position").longValue()).isZero();
        assertThat(body.get("tables").get("items").get("rows").longValue()).isZero();
        assertThat(body.get("tables").get("items").get("sha256").stringValue())
                .isEqualTo(new Accumulator(Table.items).finish().sha256());
        assertThat(client(null).get().uri("/v1/streams/acme/nothing/projection-checksum").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(401);
        assertThat(client("r").get().uri("/v1/streams/acme/nothing/projection-checksum").retrieve()
                .toEntity(JsonNode.class).getStatusCode().value()).isEqualTo(403);
    }

    private JsonNode checksum(String token, String catalog) {
        return checksum(token, catalog, null);
    }

    private JsonNode checksum(String token, String catalog, String profile) {
        ResponseEntity<JsonNode> r = client(token).get().uri("/v1/streams/acme/{c}/projection-checksum"
                + (profile == null ? "" : "?profile=" + profile), catalog).retrieve().toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        return r.getBody();
    }

    /** The profile over the last revision of each aggregate; JSON fields rendered by PostgreSQL's jsonb::text. */
    private Map<Table, TableChecksum> expected(List<ChainWriter.Event> events) {
        Map<String, Change> current = new HashMap<>();
        for (ChainWriter.Event e : events) {
            Change c = e.change();
            if (List.of("item", "mapping", "policy", "release").contains(c.aggregateType())) {
                current.merge(c.aggregateType() + ":" + c.aggregateId(), c,
                        (a, b) -> a.revision() >= b.revision() ? a : b);
            }
        }
        Map<Table, TreeMap<String, Object[]>> rows = new HashMap<>();
        for (Table t : Table.values()) {
            rows.put(t, new TreeMap<>());
        }
        for (Change c : current.values()) {
            String id = c.aggregateId();
            switch (c.aggregateType()) {
                case "item" -> {
                    boolean deleted = c.type().equals("ItemDeleted");
                    rows.get(Table.items).put(id, new Object[] {id, c.revision(), deleted,
                        jsonb(deleted ? "{}" : c.payload().get("attributes").toString())});
                }
                case "mapping" -> rows.get(Table.mappings).put(id, new Object[] {id, c.revision(),
                    c.payload().get("source").stringValue(), c.payload().get("target").stringValue()});
                case "policy" -> rows.get(Table.policies).put(id, new Object[] {id, c.revision(),
                    jsonb(c.payload().get("rules").toString())});
                default -> rows.get(Table.releases).put(id, new Object[] {id, c.revision(),
                    c.payload().get("visibility").stringValue(), jsonb(c.payload().get("items").toString())});
            }
        }
        Map<Table, TableChecksum> out = new HashMap<>();
        for (Table t : Table.values()) {
            Accumulator acc = new Accumulator(t);
            rows.get(t).values().forEach(acc::row);
            out.put(t, acc.finish());
        }
        return out;
    }

    private String jsonb(String json) {
        return jdbc.sql("SELECT ?::jsonb::text").params(json).query(String.class).single();
    }
}
