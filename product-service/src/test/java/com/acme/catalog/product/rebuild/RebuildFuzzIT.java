package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.inbox.DeliveryParser;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionWriter;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ExpectedProjection;
import com.acme.catalog.product.support.ExportWriter;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The delivery fuzzer's histories (releases PUBLIC and PRIVATE, updates, deletions, multi-change transactions),
 * this time through a rebuild: an export of the history at a random cursor W (each aggregate's current row and
 * the whole revision history, as the resolver writes it) loaded into a shadow generation, then the rest caught up
 * in random pages with the live apply code. Right after the load the generation must hold the oracle's projection
 * of the history through W, and after the catch-up that of the whole history: current state, releases and the
 * public view with the served attributes ({@link ExpectedProjection}); its public view must equal the full
 * recomputation, and its revision history and release rows (with where each was made) the live generation's that
 * applied every event. Reproduce with {@code -Dfuzz.seed=…}.
 */
class RebuildFuzzIT extends ProductIT {

    private static final int SETS = 4;
    private static final int CUTS = Integer.getInteger("fuzz.cuts", 6);

    @Autowired
    ShadowLoader loader;
    @Autowired
    ObjectStore store;
    @Autowired
    EventApplier applier;
    @Autowired
    DeliveryParser parser;
    @Autowired
    GenerationRepository generations;
    @Autowired
    ProjectionWriter projection;
    @Autowired
    GenerationRetirer retirer;
    @Autowired
    PlatformTransactionManager tm;

    @Test
    void aRebuildAtAnyCursorServesWhatTheHistorySays() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        Projections projections = new Projections(jdbc);
        TransactionTemplate tx = new TransactionTemplate(tm);
        int olderRevisionsShown = 0;
        for (int set = 0; set < SETS; set++) {
            StreamId s = new StreamId("fuzz", "rebuild-" + set);
            List<Event> chain = new ChainWriter(s, 1, new Random(seed + 31 * set))
                    .appendAll(new CatalogHistory(new Random(seed + set)).random(60 + random.nextInt(40)));
            ExpectedProjection expected = ExpectedProjection.of(chain);
            for (int i = 0; i < chain.size(); i += 25) {
                assertThat(deliver("r", chain.subList(i, Math.min(chain.size(), i + 25)).stream()
                        .map(Event::delivered).toList()).getStatusCode().value()).isEqualTo(200);
            }
            long live = projections.servingGeneration(s);
            assertThat(projections.publicView(live)).as("live, seed %d set %d", seed, set)
                    .isEqualTo(expected.publicView());
            olderRevisionsShown += (int) expected.publicView().entrySet().stream().filter(p ->
                    !projections.items(live).get(p.getKey()).startsWith(p.getValue().split("\\|")[0] + "|")).count();

            for (int cut = 0; cut < CUTS; cut++) {
                int w = cut == 0 ? chain.size() : random.nextInt(chain.size() + 1);
                String where = "fuzz.seed=%d set %d W=%d".formatted(seed, set, w);
                String key = ExportWriter.write(store, s, chain, w, "fuzz-" + set + "-" + cut + "-" + seed);
                long g = loader.load(s, key, ExportObjectReader.manifest(store, key), rows -> { }).generationId();
                try {
                    ExpectedProjection atW = ExpectedProjection.of(chain.subList(0, w));
                    assertThat(projections.items(g)).as("loaded, " + where).isEqualTo(atW.items);
                    assertThat(projections.publicView(g)).as("loaded, " + where).isEqualTo(atW.publicView());

                    catchUp(tx, g, chain.subList(w, chain.size()), random);
                    assertThat(projections.cursorOf(g)).as(where).containsExactly(chain.size(), chain.size());
                    assertThat(projections.items(g)).as(where).isEqualTo(expected.items);
                    assertThat(projections.releases(g)).as(where).isEqualTo(expected.releases);
                    assertThat(projections.publicView(g)).as(where).isEqualTo(expected.publicView());
                    assertThat(rows("aggregate_revision", g)).as("history, " + where)
                            .isEqualTo(rows("aggregate_revision", live));
                    assertThat(rows("release", g)).as("releases and where they were made, " + where)
                            .isEqualTo(rows("release", live));
                    Map<String, String> incremental = projections.publicView(g);
                    projection.rebuildPublicView(g);
                    assertThat(projections.publicView(g)).as("incremental == full, " + where).isEqualTo(incremental);
                } finally {
                    retirer.retire(g);
                }
            }
        }
        assertThat(olderRevisionsShown).as("the histories show items at an older revision than their current one")
                .isPositive();
    }

    /** Applies the events after W to the shadow generation in random pages, as the rebuild's catch-up does. */
    private void catchUp(TransactionTemplate tx, long g, List<Event> rest, Random random) {
        List<IntegrationEvent> events = new ArrayList<>(rest.size());
        for (Event e : rest) {
            events.add(parser.parseWire(e.wire(), e.chainDigest()));
        }
        for (int i = 0; i < events.size(); ) {
            int n = Math.min(events.size() - i, 1 + random.nextInt(30));
            List<IntegrationEvent> page = events.subList(i, i + n);
            tx.executeWithoutResult(st -> applier.apply(generations.lockGeneration(g).orElseThrow(), page));
            i += n;
        }
    }

    private List<String> rows(String table, long g) {
        return jdbc.sql("SELECT (to_jsonb(t) - 'generation_id')::text FROM " + table + " t WHERE generation_id = ? "
                + "ORDER BY 1").params(g).query(String.class).list();
    }
}
