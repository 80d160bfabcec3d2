package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.ProjectionWriter;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ExpectedProjection;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * A seeded delivery fuzzer: four event sets (two as the resolver publishes them, two with events moved ahead of
 * what they depend on), each delivered over and over, shuffled, partly duplicated and split into random batches.
 * The histories interleave item writes, deletions and re-creations, PUBLIC and PRIVATE releases (re-put, emptied,
 * naming older revisions of live and deleted items) and releases followed by the item's next revision, in
 * multi-change transactions. Every run must end with the same projection (row for row), equal to an independently
 * computed expectation ({@link ExpectedProjection}: current state and the public view with the served attributes),
 * with the contiguous position at the last position and nothing held. {@code RebuildFuzzIT} checks the same
 * histories after a rebuild. Each run reuses its set's generation,
 * emptied first, and commits skip the WAL flush (nothing here survives a crash anyway), so 200 runs stay fast.
 * Reproduce with {@code -Dfuzz.seed=…}; {@code -Dfuzz.runs=…} for more.
 */
@TestPropertySource(properties = "spring.datasource.hikari.connection-init-sql=SET synchronous_commit = off")
class DeliveryFuzzIT extends ProductIT {

    private static final int RUNS = Integer.getInteger("fuzz.runs", 200);
    private static final int SETS = 4;
    private static final Set<String> LIVE_OUTCOMES = Set.of("APPLIED", "DUPLICATE", "PARKED", "IGNORED");

    @Autowired
    ProjectionWriter projectionWriter;


    @Test
    void theSameEventsInAnyDeliveryScheduleConvergeToOneProjection() {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Projections projections = new Projections(jdbc);
        Random random = new Random(seed);
        int parkedSeen = 0;
        for (int set = 0; set < SETS; set++) {
            StreamId s = new StreamId("fuzz", "set-" + set);
            List<Change> changes = new CatalogHistory(new Random(seed + set)).random(40 + random.nextInt(20));
            if (set >= 2) {
                changes = CatalogHistory.withForwardDependencies(new Random(seed - set), changes, 15);
            }
            List<Event> chain = new ChainWriter(s, 1, new Random(seed + 31 * set)).appendAll(changes);
            ExpectedProjection expected = ExpectedProjection.of(chain);
            Map<String, List<String>> reference = null;
            for (int run = 0; run < RUNS / SETS; run++) {
                long runSeed = random.nextLong();
                String where = "fuzz.seed=%d set %d run %d (run seed %d)".formatted(seed, set, run, runSeed);
                if (reference != null) {
                    projections.reset(projections.servingGeneration(s));
                }
                parkedSeen += deliverInRandomSchedule(chain, new Random(runSeed), where);
                long g = projections.servingGeneration(s);
                long last = chain.size();
                assertThat(projections.cursor(s)).as(where).containsExactly(last, last, last);
                assertThat(projections.held(s)).as(where).isZero();
                assertThat(projections.items(g)).as(where).isEqualTo(expected.items);
                assertThat(projections.releases(g)).as(where).isEqualTo(expected.releases);
                assertThat(projections.publicItems(g)).as(where).isEqualTo(expected.publicItems);
                assertThat(projections.publicView(g)).as("served attributes, " + where).isEqualTo(expected.publicView());
                Map<String, List<String>> dump = projections.dump(g);
                if (reference == null) {
                    reference = dump;
                    projectionWriter.rebuildPublicView(g);
                    assertThat(projections.dump(g)).as("incremental public view == full rebuild, " + where)
                            .isEqualTo(reference);
                } else {
                    assertThat(dump).as(where).isEqualTo(reference);
                }
            }
        }
        assertThat(parkedSeen).as("the schedules made the inbox hold events").isGreaterThan(RUNS);
    }

    /** @return how many PARKED outcomes the deliveries answered */
    private int deliverInRandomSchedule(List<Event> chain, Random r, String where) {
        List<Event> deliveries = new ArrayList<>(chain);
        int duplicateShare = r.nextInt(50);
        for (Event e : chain) {
            if (r.nextInt(100) < duplicateShare) {
                deliveries.add(e);
            }
        }
        switch (r.nextInt(3)) {
            case 0 -> Collections.shuffle(deliveries, r);
            case 1 -> {
                deliveries.sort((a, b) -> Long.compare(a.position(), b.position()));
                for (int k = 0; k < deliveries.size() / 4; k++) {
                    int i = r.nextInt(deliveries.size() - 1);
                    Collections.swap(deliveries, i, Math.min(deliveries.size() - 1, i + 1 + r.nextInt(6)));
                }
            }
            default -> deliveries.sort((a, b) -> Long.compare(b.position(), a.position()));
        }
        int maxBatch = 1 + r.nextInt(40);
        int parked = 0;
        long contiguous = 0;
        for (int i = 0; i < deliveries.size(); ) {
            int n = Math.min(deliveries.size() - i, 1 + r.nextInt(maxBatch));
            List<String> batch = new ArrayList<>(n);
            for (Event e : deliveries.subList(i, i + n)) {
                batch.add(e.delivered());
            }
            ResponseEntity<JsonNode> answer = deliver("r", batch);
            assertThat(answer.getStatusCode().value()).as("%s: %s", where, answer.getBody()).isEqualTo(200);
            for (JsonNode result : answer.getBody().get("results")) {
                String outcome = result.get("outcome").stringValue();
                assertThat(outcome).as(where).isIn(LIVE_OUTCOMES);
                parked += outcome.equals("PARKED") ? 1 : 0;
            }
            long now = answer.getBody().get("contiguousPosition").longValue();
            assertThat(now).as("contiguous position never goes back, " + where).isGreaterThanOrEqualTo(contiguous);
            contiguous = now;
            i += n;
        }
        return parked;
    }
}
