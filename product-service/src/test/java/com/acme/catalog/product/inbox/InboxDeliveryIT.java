package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** The live inbox, one behaviour at a time: dedupe, chain order, parking, ignoring, epochs, chain breaks. */
class InboxDeliveryIT extends ProductIT {

    private Projections projections;

    @BeforeEach
    void setUp() {
        projections = new Projections(jdbc);
    }

    @Test
    void appliesInOrderAndAnswersTheContiguousPosition() {
        StreamId s = new StreamId("acme", "in-order");
        CatalogHistory h = new CatalogHistory(new Random(1));
        List<Event> chain = new ChainWriter(s, 1, new Random(1)).appendAll(List.of(
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 120, "blue")),
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner II", 130, "blue")),
                h.putRelease("spring", "PUBLIC", Map.of("sku-1", 2))));

        ResponseEntity<JsonNode> r = deliver("r", delivered(chain, 0, 1, 2));

        assertThat(r.getStatusCode().value()).isEqualTo(200);
        assertThat(outcomes(r)).containsExactly("APPLIED", "APPLIED", "APPLIED");
        assertThat(r.getBody().get("contiguousPosition").longValue()).isEqualTo(3);
        assertThat(r.getBody().get("epoch").longValue()).isEqualTo(1);
        assertThat(r.getBody().get("results").get(2).get("position").longValue()).isEqualTo(3);
        long g = projections.servingGeneration(s);
        assertThat(projections.items(g)).containsOnlyKeys("sku-1");
        assertThat(projections.items(g).get("sku-1")).startsWith("2|false|");
        assertThat(projections.publicItems(g)).containsEntry("sku-1", "2|spring");
        assertThat(projections.count("aggregate_revision", g)).isEqualTo(3);
        assertThat(projections.count("inbox", g)).isEqualTo(3);
    }

    @Test
    void holdsEarlyEventsUntilTheirPredecessorArrives() {
        StreamId s = new StreamId("acme", "early");
        List<Event> chain = itemChain(s, 4);

        ResponseEntity<JsonNode> early = deliver("r", delivered(chain, 2, 3));
        assertThat(outcomes(early)).containsExactly("PARKED", "PARKED");
        assertThat(early.getBody().get("contiguousPosition").longValue()).isZero();
        assertThat(projections.held(s)).isEqualTo(2);
        assertThat(projections.count("item", projections.servingGeneration(s))).isZero();

        ResponseEntity<JsonNode> first = deliver("r", delivered(chain, 0));
        assertThat(outcomes(first)).containsExactly("APPLIED");
        assertThat(first.getBody().get("contiguousPosition").longValue()).isEqualTo(1);

        ResponseEntity<JsonNode> rest = deliver("r", delivered(chain, 1, 2, 1));
        assertThat(outcomes(rest)).containsExactly("APPLIED", "DUPLICATE", "DUPLICATE");
        assertThat(rest.getBody().get("contiguousPosition").longValue()).isEqualTo(4);
        assertThat(projections.held(s)).isZero();
        assertThat(projections.cursor(s)).containsExactly(4, 4, 4);
    }

    @Test
    void aLongBacklogBehindAGapDrainsWhenTheGapIsFilled() {
        StreamId s = new StreamId("acme", "backlog");
        List<Event> chain = itemChain(s, 1200);
        for (int from = 1; from < chain.size(); from += 200) {
            List<String> batch = new ArrayList<>();
            chain.subList(from, Math.min(chain.size(), from + 200)).forEach(e -> batch.add(e.delivered()));
            assertThat(deliver("r", batch).getBody().get("contiguousPosition").longValue()).isZero();
        }
        assertThat(projections.held(s)).isEqualTo(1199);

        ResponseEntity<JsonNode> filled = deliver("r", delivered(chain, 0));

        assertThat(outcomes(filled)).containsExactly("APPLIED");
        assertThat(filled.getBody().get("contiguousPosition").longValue()).isEqualTo(1200);
        assertThat(projections.held(s)).isZero();
        assertThat(projections.count("item", projections.servingGeneration(s))).isEqualTo(1200);
    }

    @Test
    void ignoresUnknownTypesAndDecisionsButAdvancesPastThem() {
        StreamId s = new StreamId("acme", "unknown-types");
        CatalogHistory h = new CatalogHistory(new Random(2));
        List<Event> chain = new ChainWriter(s, 1, new Random(2)).appendAll(List.of(
                h.upsertItem("sku-1", CatalogHistory.attributes("Alpine boot", 90, "black")),
                h.unknown("ItemTagged"), h.decision(),
                h.upsertItem("sku-2", CatalogHistory.attributes("Merino sock", 12, "blue"))));

        ResponseEntity<JsonNode> r = deliver("r", delivered(chain, 0, 1, 2, 3));

        assertThat(outcomes(r)).containsExactly("APPLIED", "IGNORED", "IGNORED", "APPLIED");
        assertThat(r.getBody().get("contiguousPosition").longValue()).isEqualTo(4);
        long g = projections.servingGeneration(s);
        assertThat(jdbc.sql("SELECT outcome FROM inbox WHERE generation_id = ? ORDER BY position").params(g)
                .query(String.class).list()).containsExactly("APPLIED", "IGNORED", "IGNORED", "APPLIED");
    }

    @Test
    void parkedEventsHoldBackTheContiguousPositionUntilTheirDependencyArrives() {
        StreamId s = new StreamId("acme", "forward-deps");
        CatalogHistory h = new CatalogHistory(new Random(3));
        Event x1;
        List<Event> chain = new ArrayList<>();
        ChainWriter w = new ChainWriter(s, 1, new Random(3));
        var itemX1 = h.upsertItem("sku-x", CatalogHistory.attributes("Urban jacket", 200, "black"));
        var itemX2 = h.upsertItem("sku-x", CatalogHistory.attributes("Urban jacket", 180, "black"));
        var release = h.putRelease("launch", "PUBLIC", Map.of("sku-x", 1));
        // positions: 1 = other item, 2 = release naming sku-x r1, 3 = sku-x r2, 4 = unrelated, 5 = sku-x r1
        chain.add(w.append(h.upsertItem("sku-y", CatalogHistory.attributes("Light tent", 300, "blue"))));
        chain.add(w.append(release));
        chain.add(w.append(itemX2));
        chain.add(w.append(h.upsertMapping("map-1", "color", "colour")));
        x1 = w.append(itemX1);
        chain.add(x1);

        ResponseEntity<JsonNode> r = deliver("r", delivered(chain, 0, 1, 2, 3));
        assertThat(outcomes(r)).containsExactly("APPLIED", "PARKED", "PARKED", "APPLIED");
        assertThat(r.getBody().get("contiguousPosition").longValue()).isEqualTo(1);
        assertThat(projections.cursor(s)).containsExactly(4, 1, 4);
        long g = projections.servingGeneration(s);
        assertThat(jdbc.sql("""
                SELECT concat_ws(' ', position, state, wait_type, wait_id, wait_revision)
                  FROM held_event WHERE generation_id = ? ORDER BY position
                """).params(g).query(String.class).list())
                .containsExactly("2 PARKED item sku-x 1", "3 PARKED item sku-x 1");
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).contains("http_server_requests_seconds_count").doesNotContain("spring_security_");
        assertThat(metrics).contains("product_applied_position{application=\"product\",catalog=\"forward-deps\","
                + "tenant=\"acme\"} 1.0");
        assertThat(metrics).contains("product_parked_events{application=\"product\",catalog=\"forward-deps\","
                + "tenant=\"acme\"} 2.0");
        assertThat(metrics).contains("product_apply_lag_events{application=\"product\",catalog=\"forward-deps\","
                + "tenant=\"acme\"} 3.0");

        ResponseEntity<JsonNode> last = deliver("r", List.of(x1.delivered()));
        assertThat(outcomes(last)).containsExactly("APPLIED");
        assertThat(last.getBody().get("contiguousPosition").longValue()).isEqualTo(5);
        assertThat(projections.held(s)).isZero();
        assertThat(projections.items(g).get("sku-x")).startsWith("2|false|");
        assertThat(projections.publicItems(g)).containsEntry("sku-x", "1|launch");
        assertThat(jdbc.sql("SELECT count(*) FROM inbox WHERE generation_id = ? AND outcome = 'APPLIED'").params(g)
                .query(Long.class).single()).isEqualTo(5);
    }

    @Test
    void aBrokenLinkInTheBatchAppliesNothingOfIt() {
        StreamId s = new StreamId("acme", "broken-batch");
        List<Event> chain = itemChain(s, 3);
        deliver("r", delivered(chain, 0));
        long g = projections.servingGeneration(s);
        var before = projections.dump(g);

        ResponseEntity<JsonNode> r = deliver("r",
                List.of(chain.get(1).delivered(), chain.get(2).deliveredWithBadDigest()));

        assertThat(r.getStatusCode().value()).isEqualTo(422);
        assertThat(r.getHeaders().getContentType().toString()).startsWith("application/problem+json");
        assertThat(r.getBody().get("code").stringValue()).isEqualTo("CHAIN_BROKEN");
        assertThat(projections.dump(g)).isEqualTo(before);
    }

    @Test
    void aBrokenFirstDeliveryLeavesNoGenerationBehind() {
        StreamId s = new StreamId("acme", "broken-first");
        List<Event> chain = itemChain(s, 1);

        ResponseEntity<JsonNode> r = deliver("r", List.of(chain.get(0).deliveredWithBadDigest()));

        assertThat(r.getStatusCode().value()).isEqualTo(422);
        assertThat(jdbc.sql("SELECT count(*) FROM generation WHERE catalog = 'broken-first'").query(Long.class)
                .single()).isZero();
    }

    @Test
    void aHeldEventThatDoesNotChainIsRefusedThenDiscardedSoTheCorrectOneCanPass() {
        StreamId s = new StreamId("acme", "broken-held");
        List<Event> chain = itemChain(s, 3);
        assertThat(outcomes(deliver("r", List.of(chain.get(2).deliveredWithBadDigest())))).containsExactly("PARKED");

        ResponseEntity<JsonNode> refused = deliver("r", delivered(chain, 0, 1));
        assertThat(refused.getStatusCode().value()).isEqualTo(422);
        assertThat(refused.getBody().get("code").stringValue()).isEqualTo("CHAIN_BROKEN");
        assertThat(projections.cursor(s)).containsExactly(0, 0, 3);
        assertThat(projections.held(s)).isZero();

        assertThat(outcomes(deliver("r", delivered(chain, 0, 1)))).containsExactly("APPLIED", "APPLIED");
        ResponseEntity<JsonNode> fixed = deliver("r", delivered(chain, 2));
        assertThat(outcomes(fixed)).containsExactly("APPLIED");
        assertThat(fixed.getBody().get("contiguousPosition").longValue()).isEqualTo(3);
    }

    @Test
    void aRedeliveryWithAnotherDigestIsAChainBreak() {
        StreamId s = new StreamId("acme", "conflicting");
        List<Event> chain = itemChain(s, 3);
        deliver("r", delivered(chain, 0, 2));

        assertThat(deliver("r", List.of(chain.get(0).deliveredWithBadDigest())).getStatusCode().value())
                .isEqualTo(422);
        assertThat(deliver("r", List.of(chain.get(2).deliveredWithBadDigest())).getStatusCode().value())
                .isEqualTo(422);
        assertThat(deliver("r", List.of(chain.get(1).delivered(), chain.get(1).deliveredWithBadDigest()))
                .getStatusCode().value()).isEqualTo(422);
        assertThat(outcomes(deliver("r", delivered(chain, 1)))).containsExactly("APPLIED");
        assertThat(projections.cursor(s)).containsExactly(3, 3, 3);
    }

    @Test
    void eventsOfAnOlderEpochAreAuditedAndIgnored() {
        double oldEpochBefore = scraped(OLD_EPOCH_DELIVERIES);
        StreamId s = new StreamId("acme", "restored");
        List<Event> epoch2 = new ChainWriter(s, 2, new Random(5)).appendAll(items(new Random(5), 2));
        List<Event> epoch1 = new ChainWriter(s, 1, new Random(6)).appendAll(items(new Random(6), 3));
        assertThat(outcomes(deliver("r", delivered(epoch2, 0, 1)))).containsExactly("APPLIED", "APPLIED");

        ResponseEntity<JsonNode> old = deliver("r", List.of(epoch1.get(0).delivered(), epoch1.get(1).delivered(),
                epoch1.get(0).delivered()));

        assertThat(outcomes(old)).containsExactly("IGNORED_OLD_EPOCH", "IGNORED_OLD_EPOCH", "IGNORED_OLD_EPOCH");
        assertThat(old.getBody().get("contiguousPosition").longValue()).isEqualTo(2);
        assertThat(old.getBody().get("epoch").longValue()).isEqualTo(2);
        assertThat(jdbc.sql("""
                SELECT concat_ws(' ', epoch, position, serving_epoch) FROM old_epoch_delivery
                 WHERE tenant = 'acme' AND catalog = 'restored' ORDER BY delivery_id
                """).query(String.class).list()).containsExactly("1 1 2", "1 2 2", "1 1 2");
        assertThat(projections.count("inbox", projections.servingGeneration(s))).isEqualTo(2);
        assertThat(scraped(OLD_EPOCH_DELIVERIES) - oldEpochBefore).isEqualTo(3.0);

        List<Event> epoch3 = new ChainWriter(s, 3, new Random(7)).appendAll(items(new Random(7), 1));
        ResponseEntity<JsonNode> newer = deliver("r", List.of(epoch3.get(0).delivered(), epoch2.get(1).delivered()));
        assertThat(newer.getStatusCode().value()).isEqualTo(409);
        assertThat(newer.getBody().get("code").stringValue()).isEqualTo("EPOCH_MISMATCH");
        assertThat(jdbc.sql("SELECT count(*) FROM old_epoch_delivery WHERE catalog = 'restored'").query(Long.class)
                .single()).isEqualTo(3);
    }

    @Test
    void aPositionFarAheadOfTheVerifiedOneIsRefused() {
        StreamId s = new StreamId("acme", "far-ahead");
        List<Event> chain = itemChain(s, 1);
        deliver("r", delivered(chain, 0));
        String wire = chain.get(0).wire().replace("\"position\":1,", "\"position\":100002,");

        ResponseEntity<JsonNode> r = deliver("r",
                List.of(com.acme.catalog.contracts.EventWire.withDigest(wire, chain.get(0).chainDigest())));

        assertThat(r.getStatusCode().value()).isEqualTo(422);
        assertThat(r.getBody().get("code").stringValue()).isEqualTo("POSITION_AHEAD");
        assertThat(projections.held(s)).isZero();
    }

    private List<Event> itemChain(StreamId s, int n) {
        return new ChainWriter(s, 1, new Random(n)).appendAll(items(new Random(n), n));
    }

    private static List<com.acme.catalog.product.support.Change> items(Random r, int n) {
        CatalogHistory h = new CatalogHistory(r);
        List<com.acme.catalog.product.support.Change> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(h.upsertItem("sku-" + i, CatalogHistory.attributes("Classic glove " + i, i, "black")));
        }
        return out;
    }

    static List<String> delivered(List<Event> chain, int... indexes) {
        List<String> out = new ArrayList<>();
        for (int i : indexes) {
            out.add(chain.get(i).delivered());
        }
        return out;
    }

    static List<String> outcomes(ResponseEntity<JsonNode> r) {
        assertThat(r.getStatusCode().value()).as("status of %s", r.getBody()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        r.getBody().get("results").forEach(n -> out.add(n.get("outcome").stringValue()));
        return out;
    }

    @SuppressWarnings("unused")
    private static Map<String, Integer> named(String item, int revision) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(item, revision);
        return m;
    }
}
