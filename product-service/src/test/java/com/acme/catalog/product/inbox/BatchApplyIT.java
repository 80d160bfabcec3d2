package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * The batch write set of one apply run: several revisions of one aggregate, a release re-pointed more than once,
 * and parking chains, all inside one delivery. Each scenario is delivered batch by batch, then (on the emptied
 * generation) one event per delivery in position order; both must leave the same rows in every table.
 */
class BatchApplyIT extends ProductIT {

    private Projections projections;

    @BeforeEach
    void setUp() {
        projections = new Projections(jdbc);
    }

    @Test
    void anItemUpsertedTwiceAndDeletedInOneBatchEndsDeletedAndNotPublic() {
        StreamId s = new StreamId("batch", "item-twice");
        CatalogHistory h = new CatalogHistory(new Random(1));
        ChainWriter w = new ChainWriter(s, 1, new Random(1));
        List<List<Event>> batches = List.of(
                w.appendAll(List.of(item(h, "sku-a", "Alpine boot"), item(h, "sku-b", "Merino sock"),
                        h.putRelease("spring", "PUBLIC", Map.of("sku-a", 1, "sku-b", 1)))),
                w.appendAll(List.of(item(h, "sku-a", "Alpine boot II"), item(h, "sku-a", "Alpine boot III"),
                        h.deleteItem("sku-a"), item(h, "sku-b", "Merino sock II"),
                        h.putRelease("summer", "PUBLIC", Map.of("sku-b", 2)))),
                // sku-a comes back: the release that named its revision 1 makes it public again
                w.appendAll(List.of(item(h, "sku-a", "Alpine boot IV"), h.upsertMapping("m", "colour", "color"))));

        long g = deliverInBatches(s, batches);

        assertThat(projections.items(g).get("sku-b")).startsWith("2|false|");
        assertThat(projections.publicItems(g)).containsEntry("sku-b", "2|summer").containsEntry("sku-a", "1|spring");
        assertThat(jdbc.sql("SELECT revision || '|' || deleted FROM aggregate_revision WHERE generation_id = ? AND "
                + "aggregate_id = 'sku-a' ORDER BY revision").params(g).query(String.class).list())
                .containsExactly("1|false", "2|false", "3|false", "4|true", "5|false");
        assertSameAsOneByOne(s, batches);
    }

    @Test
    void anItemDeletedInTheLastBatchLeavesThePublicView() {
        StreamId s = new StreamId("batch", "item-deleted");
        CatalogHistory h = new CatalogHistory(new Random(2));
        ChainWriter w = new ChainWriter(s, 1, new Random(2));
        List<List<Event>> batches = List.of(
                w.appendAll(List.of(item(h, "sku-a", "Trail runner"),
                        h.putRelease("spring", "PUBLIC", Map.of("sku-a", 1)))),
                w.appendAll(List.of(item(h, "sku-a", "Trail runner II"), item(h, "sku-a", "Trail runner III"),
                        h.deleteItem("sku-a"))));

        long g = deliverInBatches(s, batches);

        assertThat(projections.items(g).get("sku-a")).isEqualTo("4|true|{}");
        assertThat(projections.publicItems(g)).isEmpty();
        assertSameAsOneByOne(s, batches);
    }

    @Test
    void aReleaseRepointedTwiceInOneBatchNamesOnlyItsLastItems() {
        StreamId s = new StreamId("batch", "release-repointed");
        CatalogHistory h = new CatalogHistory(new Random(3));
        ChainWriter w = new ChainWriter(s, 1, new Random(3));
        List<List<Event>> batches = List.of(
                w.appendAll(List.of(item(h, "sku-a", "Light jacket"), item(h, "sku-b", "Urban hoodie"),
                        item(h, "sku-c", "Classic tent"), item(h, "sku-d", "Insulated glove"),
                        h.putRelease("spring", "PUBLIC", Map.of("sku-c", 1)))),
                w.appendAll(List.of(h.putRelease("spring", "PUBLIC", Map.of("sku-a", 1)),
                        h.putRelease("other", "PUBLIC", Map.of("sku-d", 1)),
                        h.putRelease("spring", "PUBLIC", Map.of("sku-b", 1)),
                        h.putRelease("other", "PRIVATE", Map.of("sku-d", 1)))));

        long g = deliverInBatches(s, batches);

        assertThat(projections.releases(g)).containsEntry("spring", "3|PUBLIC").containsEntry("other", "2|PRIVATE");
        assertThat(jdbc.sql("SELECT release_id || ':' || item_id FROM release_item WHERE generation_id = ? "
                + "ORDER BY 1").params(g).query(String.class).list()).containsExactly("other:sku-d", "spring:sku-b");
        // sku-c was named before the batch, sku-a and sku-d only inside it: none of them is public any more
        assertThat(projections.publicItems(g)).containsOnlyKeys("sku-b").containsEntry("sku-b", "1|spring");
        assertSameAsOneByOne(s, batches);
    }

    @Test
    void parkedChainsUnparkInsideOneBatchAndAcrossBatches() {
        StreamId s = new StreamId("batch", "unpark");
        CatalogHistory h = new CatalogHistory(new Random(4));
        Change x1 = item(h, "sku-x", "Trail runner");
        Change x2 = item(h, "sku-x", "Trail runner II");
        Change x3 = item(h, "sku-x", "Trail runner III");
        Change release = h.putRelease("spring", "PUBLIC", Map.of("sku-x", 3));
        Change y1 = item(h, "sku-y", "Café sock");
        Change y2 = item(h, "sku-y", "Café sock II");
        Change y3 = item(h, "sku-y", "Café sock III");
        ChainWriter w = new ChainWriter(s, 1, new Random(4));
        // positions 1-4 arrive in reverse dependency order in one delivery; 5 (y2) alone, parked until 7 (y1)
        // arrives in the last delivery together with 6 (y3), parked on y2 in the batch before
        List<Event> chain = w.appendAll(List.of(release, x3, x2, x1, y2, y3, y1));
        List<List<Event>> batches = List.of(chain.subList(0, 4), chain.subList(4, 5), chain.subList(5, 6),
                chain.subList(6, 7));

        List<List<String>> outcomes = new ArrayList<>();
        long g = deliverInBatches(s, batches, outcomes);

        assertThat(outcomes.get(0)).containsExactly("APPLIED", "APPLIED", "APPLIED", "APPLIED");
        assertThat(outcomes.get(1)).containsExactly("PARKED");
        assertThat(outcomes.get(2)).containsExactly("PARKED");
        assertThat(outcomes.get(3)).containsExactly("APPLIED");
        assertThat(projections.cursor(s)).containsExactly(7L, 7L, 7L);
        assertThat(projections.held(s)).isZero();
        assertThat(projections.items(g).get("sku-x")).startsWith("3|false|");
        assertThat(projections.items(g).get("sku-y")).startsWith("3|false|");
        assertThat(projections.publicItems(g)).containsEntry("sku-x", "3|spring");
        assertSameAsOneByOne(s, batches);
    }

    private static Change item(CatalogHistory h, String id, String name) {
        return h.upsertItem(id, CatalogHistory.attributes(name, 100, "black"));
    }

    private long deliverInBatches(StreamId s, List<List<Event>> batches) {
        return deliverInBatches(s, batches, new ArrayList<>());
    }

    private long deliverInBatches(StreamId s, List<List<Event>> batches, List<List<String>> outcomes) {
        for (List<Event> batch : batches) {
            ResponseEntity<JsonNode> r = deliver("r", batch.stream().map(Event::delivered).toList());
            assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
            List<String> o = new ArrayList<>();
            r.getBody().get("results").forEach(n -> o.add(n.get("outcome").stringValue()));
            outcomes.add(o);
        }
        return projections.servingGeneration(s);
    }

    /** Replays the same events one per delivery, in position order, on the emptied generation: same rows. */
    private void assertSameAsOneByOne(StreamId s, List<List<Event>> batches) {
        long g = projections.servingGeneration(s);
        Map<String, List<String>> batched = projections.dump(g);
        projections.reset(g);
        batches.stream().flatMap(List::stream).sorted((a, b) -> Long.compare(a.position(), b.position()))
                .forEach(e -> assertThat(deliver("r", List.of(e.delivered())).getStatusCode().value())
                        .isEqualTo(200));
        assertThat(projections.dump(g)).isEqualTo(batched);
    }
}
