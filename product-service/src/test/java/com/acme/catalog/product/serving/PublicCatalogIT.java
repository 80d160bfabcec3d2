package com.acme.catalog.product.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Public reads follow PUBLIC/PRIVATE releases, show the named revision, and read only the serving generation. */
class PublicCatalogIT extends ProductIT {

    @Test
    void anItemIsPublicAsTheRevisionItsLatestPublicReleaseNames() {
        Stream s = new Stream(new StreamId("acme", "visibility"));
        String item = "/v1/catalog/acme/visibility/items/sku-1";
        s.write(s.history.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 120, "blue")));
        assertNotFound(get(item));

        s.write(s.history.putRelease("preview", "PRIVATE", Map.of("sku-1", 1)));
        assertNotFound(get(item));

        s.write(s.history.putRelease("spring", "PUBLIC", Map.of("sku-1", 1)));
        assertShows(get(item), 1, "spring", 120);

        s.write(s.history.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 99, "blue")));
        assertShows(get(item), 1, "spring", 120);

        s.write(s.history.putRelease("summer", "PUBLIC", Map.of("sku-1", 2)));
        assertShows(get(item), 2, "summer", 99);

        s.write(s.history.putRelease("preview", "PRIVATE", Map.of("sku-1", 1)));
        assertShows(get(item), 2, "summer", 99);

        s.write(s.history.putRelease("summer", "PRIVATE", Map.of("sku-1", 2)));
        assertShows(get(item), 1, "spring", 120);

        s.write(s.history.putRelease("spring", "PUBLIC", Map.of("sku-1", 2)));
        assertShows(get(item), 2, "spring", 99);

        s.write(s.history.deleteItem("sku-1"));
        assertNotFound(get(item));
        s.write(s.history.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 150, "red")));
        assertShows(get(item), 2, "spring", 99);

        s.write(s.history.putRelease("spring", "PUBLIC", Map.of()));
        assertNotFound(get(item));
        assertThat(get("/v1/catalog/acme/visibility/search?q=runner").getBody().get("hits")).isEmpty();
    }

    /**
     * The public-view sequences in one delivery each (the set-based batch apply): written, released at revision 1 and
     * updated twice; released at revision 1 in the transaction that writes revision 2; two PUBLIC releases of which
     * the one made last names the older revision.
     */
    @Test
    void theReleasedRevisionIsServedWhenReleaseAndUpdatesArriveInOneDelivery() {
        Stream s = new Stream(new StreamId("acme", "batched"));
        CatalogHistory h = s.history;
        List<Change> changes = List.of(
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 120, "blue")),
                h.putRelease("spring", "PUBLIC", Map.of("sku-1", 1)),
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 99, "blue")),
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 80, "blue")),
                h.upsertItem("sku-2", CatalogHistory.attributes("Road racer", 150, "red")),
                h.upsertItem("sku-2", CatalogHistory.attributes("Road racer", 140, "red")),
                h.putRelease("autumn", "PUBLIC", Map.of("sku-2", 2)),
                h.putRelease("winter", "PUBLIC", Map.of("sku-2", 1)));
        List<String> delivered = new ArrayList<>();
        delivered.addAll(s.chain.transaction(changes.subList(0, 2)).stream().map(ChainWriter.Event::delivered)
                .toList());
        delivered.addAll(s.chain.transaction(changes.subList(2, changes.size())).stream()
                .map(ChainWriter.Event::delivered).toList());
        ResponseEntity<JsonNode> r = deliver("r", delivered);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        assertThat(r.getBody().get("contiguousPosition").longValue()).isEqualTo(changes.size());
        assertShows(get("/v1/catalog/acme/batched/items/sku-1"), 1, "spring", 120);
        ResponseEntity<JsonNode> racer = get("/v1/catalog/acme/batched/items/sku-2");
        assertThat(racer.getBody().get("revision").intValue()).isEqualTo(1);
        assertThat(racer.getBody().get("releaseId").stringValue()).isEqualTo("winter");
        assertThat(racer.getBody().get("attributes").get("price").intValue()).isEqualTo(150);
    }

    @Test
    void searchFindsPublicItemsOnlyRankedAndLimited() {
        Stream s = new Stream(new StreamId("acme", "search"));
        CatalogHistory h = s.history;
        ObjectNode boot = CatalogHistory.attributes("Alpine boot", 180, "brown");
        ObjectNode sock = CatalogHistory.attributes("Merino sock", 15, "grey").put("material", "alpine wool");
        s.write(h.upsertItem("boot", boot));
        s.write(h.upsertItem("sock", sock));
        s.write(h.upsertItem("runner", CatalogHistory.attributes("Trail runner", 120, "blue")));
        s.write(h.upsertItem("jacket", CatalogHistory.attributes("Trail jacket", 220, "red")));
        for (int i = 1; i <= 4; i++) {
            s.write(h.upsertItem("classic-" + i, CatalogHistory.attributes("Classic glove " + i, i, "black")));
        }
        Map<String, Integer> shown = new LinkedHashMap<>();
        for (String id : List.of("boot", "sock", "runner", "classic-1", "classic-2", "classic-3", "classic-4")) {
            shown.put(id, 1);
        }
        s.write(h.putRelease("catalog", "PUBLIC", shown));
        s.write(h.putRelease("next-season", "PRIVATE", Map.of("jacket", 1)));

        assertThat(hitIds("trail")).containsExactly("runner");
        assertThat(hitIds("runners")).containsExactly("runner");
        assertThat(hitIds("jacket")).isEmpty();
        assertThat(hitIds("alpine")).containsExactly("boot", "sock");
        JsonNode first = get("/v1/catalog/acme/search/search?q=alpine").getBody().get("hits").get(0);
        assertThat(first.get("score").doubleValue()).isPositive();
        assertThat(first.get("revision").intValue()).isEqualTo(1);
        assertThat(first.get("attributes").get("name").stringValue()).isEqualTo("Alpine boot");
        assertThat(hitIds("classic glove")).hasSize(4);
        assertThat(get("/v1/catalog/acme/search/search?q=classic&limit=2").getBody().get("hits")).hasSize(2);
        assertThat(get("/v1/catalog/acme/search/search?q=classic&limit=100000").getBody().get("limit").intValue())
                .isEqualTo(100);
        assertThat(hitIds("\"trail runner\" -jacket")).containsExactly("runner");
        assertThat(get("/v1/catalog/acme/nothing-here/search?q=trail").getBody().get("hits")).isEmpty();
        assertNotFound(get("/v1/catalog/acme/nothing-here/items/boot"));
    }

    @Test
    void readersFollowTheServingPointerAndNeverSeeAnotherGeneration() {
        Stream s = new Stream(new StreamId("acme", "pointer"));
        s.write(s.history.upsertItem("sku-1", CatalogHistory.attributes("Light tent", 300, "green")));
        s.write(s.history.putRelease("r", "PUBLIC", Map.of("sku-1", 1)));
        long serving = jdbc.sql("SELECT generation_id FROM serving_generation WHERE catalog = 'pointer'")
                .query(Long.class).single();
        long shadow = jdbc.sql("""
                INSERT INTO generation (tenant, catalog, epoch, status) VALUES ('acme', 'pointer', 1, 'BUILDING')
                RETURNING generation_id
                """).query(Long.class).single();
        jdbc.sql("SELECT create_generation_partitions(?)").params(shadow).query().singleRow();
        jdbc.sql("""
                INSERT INTO public_item (generation_id, item_id, revision, release_id, release_epoch,
                                         release_position, attributes, document)
                VALUES (?, 'ghost', 1, 'r', 1, 1, '{"name":"Ghost tent"}', to_tsvector('english', 'ghost tent'))
                """).params(shadow).update();

        assertNotFound(get("/v1/catalog/acme/pointer/items/ghost"));
        assertThat(hitIds("pointer", "tent")).containsExactly("sku-1");

        jdbc.sql("UPDATE serving_generation SET generation_id = ? WHERE catalog = 'pointer'").params(shadow).update();
        assertThat(get("/v1/catalog/acme/pointer/items/ghost").getStatusCode().value()).isEqualTo(200);
        assertNotFound(get("/v1/catalog/acme/pointer/items/sku-1"));
        assertThat(hitIds("pointer", "tent")).containsExactly("ghost");
        jdbc.sql("UPDATE serving_generation SET generation_id = ? WHERE catalog = 'pointer'").params(serving).update();
    }

    @Test
    void badReadsAreProblems() {
        assertProblem(get("/v1/catalog/Acme/shoes/items/sku-1"), 400, "INVALID_ID");
        assertProblem(get("/v1/catalog/acme/shoes/items/" + "x".repeat(129)), 400, "INVALID_ID");
        assertProblem(get("/v1/catalog/acme/shoes/items/sku!1"), 400, "INVALID_ID");
        assertProblem(get("/v1/catalog/acme/sh_oes/search?q=x"), 400, "INVALID_ID");
        assertProblem(get("/v1/catalog/acme/shoes/search"), 400, "INVALID_BODY");
        assertProblem(get("/v1/catalog/acme/shoes/search?q=+"), 400, "INVALID_BODY");
        assertProblem(get("/v1/catalog/acme/shoes/search?q=x&limit=0"), 400, "INVALID_BODY");
        assertProblem(get("/v1/catalog/acme/shoes/search?q=x&limit=ten"), 400, "INVALID_BODY");
        assertProblem(get("/v1/catalog/acme/shoes/search?q=" + "x".repeat(300)), 400, "INVALID_BODY");
    }

    /**
     * Attributes are served as the stored jsonb text, not parsed and written again: still the JSON value the item was
     * written with, escapes, non-ASCII text, numbers and nesting included, in the item read and in search hits.
     */
    @Test
    void attributesAreServedAsTheValueTheItemWasWrittenWith() {
        Stream s = new Stream(new StreamId("acme", "raw-attributes"));
        ObjectNode attributes = CatalogHistory.attributes("Tr\"ail \\ runner \u00e9 \u2028 \uD83D\uDE00",
                120, "blue");
        attributes.put("ratio", 1.25).put("onSale", true).putNull("discontinued");
        attributes.putArray("sizes").add(42).add("43\u00bd").addObject().put("eu", 44);
        attributes.putObject("dimensions").put("a-long-key-first", 1).put("b", -2);
        s.write(s.history.upsertItem("sku-raw", attributes));
        s.write(s.history.putRelease("spring", "PUBLIC", Map.of("sku-raw", 1)));

        ResponseEntity<JsonNode> item = get("/v1/catalog/acme/raw-attributes/items/sku-raw");
        assertThat(item.getStatusCode().value()).as("%s", item.getBody()).isEqualTo(200);
        assertThat(item.getBody().get("attributes")).isEqualTo(attributes);
        JsonNode hits = get("/v1/catalog/acme/raw-attributes/search?q=runner").getBody().get("hits");
        assertThat(hits).hasSize(1);
        assertThat(hits.get(0).get("attributes")).isEqualTo(attributes);
    }

    private List<String> hitIds(String q) {
        return hitIds("search", q);
    }

    private List<String> hitIds(String catalog, String q) {
        ResponseEntity<JsonNode> r = client(null).get()
                .uri(b -> b.path("/v1/catalog/acme/{c}/search").queryParam("q", "{q}").build(catalog, q))
                .retrieve().toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        r.getBody().get("hits").forEach(hit -> ids.add(hit.get("itemId").stringValue()));
        return ids;
    }

    private static void assertShows(ResponseEntity<JsonNode> r, int revision, String release, int price) {
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        assertThat(r.getBody().get("itemId").stringValue()).isEqualTo("sku-1");
        assertThat(r.getBody().get("revision").intValue()).isEqualTo(revision);
        assertThat(r.getBody().get("releaseId").stringValue()).isEqualTo(release);
        assertThat(r.getBody().get("attributes").get("price").intValue()).isEqualTo(price);
    }

    private static void assertNotFound(ResponseEntity<JsonNode> r) {
        assertProblem(r, 404, "NOT_FOUND");
    }

    private static void assertProblem(ResponseEntity<JsonNode> r, int status, String code) {
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(status);
        assertThat(r.getHeaders().getContentType().toString()).startsWith("application/problem+json");
        assertThat(r.getBody().get("code").stringValue()).isEqualTo(code);
    }

    /** Writes changes of one stream through the inbox, in order, one delivery each. */
    private final class Stream {
        final CatalogHistory history = new CatalogHistory(new Random(11));
        final ChainWriter chain;

        Stream(StreamId id) {
            chain = new ChainWriter(id, 1, new Random(12));
        }

        void write(Change c) {
            ResponseEntity<JsonNode> r = deliver("r", List.of(chain.append(c).delivered()));
            assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
            assertThat(r.getBody().get("results").get(0).get("outcome").stringValue()).isEqualTo("APPLIED");
        }
    }
}
