package com.acme.catalog.product.inbox;

import static com.acme.catalog.product.inbox.InboxDeliveryIT.delivered;
import static com.acme.catalog.product.inbox.InboxDeliveryIT.outcomes;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
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

/**
 * The resolver's {@code DecisionRecorded} event, as an ACCEPT publishes it (first of the decision's logical
 * transaction, its state events after it), is IGNORED: it is chained and counted in the contiguous position like any
 * event, never parks, never holds anything back, and never keeps a parked event from being released.
 */
class DecisionRecordedIT extends ProductIT {

    private Projections projections;

    @BeforeEach
    void setUp() {
        projections = new Projections(jdbc);
    }

    @Test
    void anAcceptedDecisionsTransactionAppliesItsChangesAndIgnoresItsEvent() {
        StreamId s = new StreamId("acme", "decided");
        CatalogHistory h = new CatalogHistory(new Random(21));
        ChainWriter w = new ChainWriter(s, 1, new Random(21));
        List<Event> chain = new ArrayList<>(w.transaction(List.of(h.decision(),
                h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 120, "blue")),
                h.putRelease("spring", "PUBLIC", Map.of("sku-1", 1)))));
        chain.add(w.append(h.upsertItem("sku-1", CatalogHistory.attributes("Trail runner", 110, "blue"))));

        ResponseEntity<JsonNode> r = deliver("r", delivered(chain, 0, 1, 2));
        assertThat(outcomes(r)).containsExactly("IGNORED", "APPLIED", "APPLIED");
        assertThat(r.getBody().get("contiguousPosition").longValue()).isEqualTo(3);
        long g = projections.servingGeneration(s);
        assertThat(projections.publicItems(g)).containsEntry("sku-1", "1|spring");
        // the chain goes on verified past the decision
        ResponseEntity<JsonNode> next = deliver("r", delivered(chain, 3));
        assertThat(outcomes(next)).containsExactly("APPLIED");
        assertThat(projections.cursor(s)).containsExactly(4, 4, 4);
        assertThat(jdbc.sql("SELECT count(*) FROM aggregate_revision WHERE generation_id = ?").params(g)
                .query(Long.class).single()).as("no revision row for the decision").isEqualTo(3);
    }

    @Test
    void aDecisionBehindAParkedEventWaitsInTheContiguousPositionAndReleasesNothingWrongly() {
        StreamId s = new StreamId("acme", "decided-parked");
        CatalogHistory h = new CatalogHistory(new Random(22));
        ChainWriter w = new ChainWriter(s, 1, new Random(22));
        var x1 = h.upsertItem("sku-x", CatalogHistory.attributes("Urban jacket", 200, "black"));
        var x2 = h.upsertItem("sku-x", CatalogHistory.attributes("Urban jacket", 180, "black"));
        List<Event> chain = new ArrayList<>();
        chain.add(w.append(x2)); // position 1 parks: it waits for sku-x revision 1
        chain.addAll(w.transaction(List.of(h.decision(),
                h.upsertItem("sku-y", CatalogHistory.attributes("Light tent", 300, "blue"))))); // 2, 3
        chain.add(w.append(x1)); // 4

        ResponseEntity<JsonNode> first = deliver("r", delivered(chain, 0, 1, 2));
        assertThat(outcomes(first)).containsExactly("PARKED", "IGNORED", "APPLIED");
        assertThat(first.getBody().get("contiguousPosition").longValue()).isZero();

        ResponseEntity<JsonNode> rest = deliver("r", delivered(chain, 3));
        assertThat(outcomes(rest)).containsExactly("APPLIED");
        assertThat(rest.getBody().get("contiguousPosition").longValue()).isEqualTo(4);
        assertThat(projections.held(s)).isZero();
        assertThat(projections.items(projections.servingGeneration(s)).get("sku-x")).startsWith("2|false|");
    }

    @Test
    void aDecisionThatArrivesBeforeItsChainPredecessorIsHeldThenIgnored() {
        StreamId s = new StreamId("acme", "decided-early");
        CatalogHistory h = new CatalogHistory(new Random(23));
        ChainWriter w = new ChainWriter(s, 1, new Random(23));
        List<Event> chain = new ArrayList<>();
        chain.add(w.append(h.upsertItem("sku-1", CatalogHistory.attributes("Alpine boot", 90, "black"))));
        chain.addAll(w.transaction(List.of(h.decision(),
                h.upsertItem("sku-1", CatalogHistory.attributes("Alpine boot", 95, "black")))));

        ResponseEntity<JsonNode> early = deliver("r", delivered(chain, 1, 2));
        assertThat(outcomes(early)).containsExactly("PARKED", "PARKED");
        ResponseEntity<JsonNode> filled = deliver("r", delivered(chain, 0, 1));
        assertThat(outcomes(filled)).containsExactly("APPLIED", "DUPLICATE");
        assertThat(filled.getBody().get("contiguousPosition").longValue()).isEqualTo(3);
        long g = projections.servingGeneration(s);
        assertThat(jdbc.sql("SELECT outcome FROM inbox WHERE generation_id = ? ORDER BY position").params(g)
                .query(String.class).list()).containsExactly("APPLIED", "IGNORED", "APPLIED");
    }
}
