package com.acme.catalog.product.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The catalog records write what the controller's maps wrote before them: the same fields in the same order, and
 * {@code attributes} as the same JSON value, now the stored text itself instead of a parse and re-serialisation.
 */
class CatalogAnswersTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** As PostgreSQL renders a jsonb value: a space after every colon and comma, keys shortest first. */
    private static final String STORED = "{\"n\": 1.50, \"name\": \"Tr\\\"ail \\u0001 runner \u00e9\", "
            + "\"tags\": [\"a\", {\"x\": null}], \"price\": 120, \"onSale\": true}";

    @Test
    void anItemIsTheMapItReplacesWithItsAttributesWrittenAsStored() {
        CatalogAnswers.Item item = new CatalogAnswers.Item("acme", "shoes", "sku-1", 2, "spring", STORED);
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("tenant", "acme");
        before.put("catalog", "shoes");
        before.put("itemId", "sku-1");
        before.put("revision", 2);
        before.put("releaseId", "spring");
        before.put("attributes", JSON.readTree(STORED));

        String written = JSON.writeValueAsString(item);
        assertThat(written).endsWith(",\"attributes\":" + STORED + "}");
        assertSameJson(written, JSON.writeValueAsString(before));
        assertThat(JSON.writeValueAsString(new CatalogAnswers.Item("acme", "shoes", "sku-1", 2, "spring",
                "{\"a\":[1,2]}"))).isEqualTo("{\"tenant\":\"acme\",\"catalog\":\"shoes\",\"itemId\":\"sku-1\","
                        + "\"revision\":2,\"releaseId\":\"spring\",\"attributes\":{\"a\":[1,2]}}");
    }

    @Test
    void aSearchListsHitsWithTheirScoreSecondThenTheLimit() {
        CatalogAnswers.Search search = new CatalogAnswers.Search(List.of(
                new CatalogAnswers.Hit("sku-1", 0.0607927f, 2, "spring", STORED),
                new CatalogAnswers.Hit("sku-2", 0.01f, 1, "spring", "{}")), 10);
        List<Map<String, Object>> hits = new ArrayList<>();
        hits.add(hit("sku-1", 0.0607927f, 2, STORED));
        hits.add(hit("sku-2", 0.01f, 1, "{}"));
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("hits", hits);
        before.put("limit", 10);

        String written = JSON.writeValueAsString(search);
        assertThat(written).startsWith("{\"hits\":[{\"itemId\":\"sku-1\",\"score\":0.0607927,\"revision\":2,"
                + "\"releaseId\":\"spring\",\"attributes\":" + STORED + "},").endsWith(",\"limit\":10}");
        assertSameJson(written, JSON.writeValueAsString(before));
        assertThat(JSON.writeValueAsString(new CatalogAnswers.Search(List.of(), 3)))
                .isEqualTo("{\"hits\":[],\"limit\":3}");
    }

    private static Map<String, Object> hit(String itemId, float score, int revision, String attributes) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("itemId", itemId);
        out.put("score", score);
        out.put("revision", revision);
        out.put("releaseId", "spring");
        out.put("attributes", JSON.readTree(attributes));
        return out;
    }

    /** Equal trees and the same member names in the same order at every level. */
    private static void assertSameJson(String actual, String expected) {
        JsonNode a = JSON.readTree(actual);
        JsonNode e = JSON.readTree(expected);
        assertThat(a).isEqualTo(e);
        assertThat(a.toString()).isEqualTo(e.toString());
    }
}
