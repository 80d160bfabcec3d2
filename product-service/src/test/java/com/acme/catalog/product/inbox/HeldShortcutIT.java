package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.Change;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An in-order delivery to a generation whose locked cursor proves it holds nothing (applied == chain, nothing seen
 * beyond the chain) does not read the held events ({@link ApplyRun#holdsNothing}); once something may be held, the
 * run reads them and the result is the same. Reads are counted with PostgreSQL's per-transaction table statistics
 * (fails without the shortcut: checked by hand).
 */
class HeldShortcutIT extends ProductIT {

    @Autowired
    EventApplier applier;
    @Autowired
    GenerationRepository generations;
    @Autowired
    DeliveryParser parser;
    @Autowired
    TransactionTemplate tx;

    @Test
    void inOrderDeliveriesSkipTheHeldEventsOnlyWhileTheCursorProvesThereAreNone() {
        StreamId s = new StreamId("shortcut", "held");
        CatalogHistory h = new CatalogHistory(new Random(7));
        ChainWriter w = new ChainWriter(s, 1, new Random(7));
        List<Event> first = w.appendAll(List.of(item(h, "sku-a"), item(h, "sku-b")));
        List<Event> second = w.appendAll(List.of(item(h, "sku-c")));
        List<Event> third = w.appendAll(List.of(item(h, "sku-d")));
        List<Event> fourth = w.appendAll(List.of(item(h, "sku-e")));
        long g = tx.execute(status -> generations.startServingEmpty(s, 1)).generationId();

        assertThat(applyCountingHeldReads(g, first)).as("in order, nothing held").isZero();
        // the third transaction before the second: it is held PENDING above the chain
        applyCountingHeldReads(g, third);
        assertThat(new Projections(jdbc).held(s)).isEqualTo(1);
        // the cursor no longer proves that nothing is held: the run must look, and releases the held event
        assertThat(applyCountingHeldReads(g, second)).as("a gap was held").isPositive();
        assertThat(new Projections(jdbc).held(s)).isZero();
        assertThat(new Projections(jdbc).cursor(s)).containsExactly(4L, 4L, 4L);
        assertThat(applyCountingHeldReads(g, fourth)).as("in order again, nothing held").isZero();
        assertThat(new Projections(jdbc).cursor(s)).containsExactly(5L, 5L, 5L);
    }

    /** Applies one delivery as the live inbox does; answers how often its transaction read the held events. */
    private long applyCountingHeldReads(long generation, List<Event> events) {
        List<IntegrationEvent> parsed = events.stream().map(e -> parser.parseWire(e.wire(), e.chainDigest())).toList();
        return tx.execute(status -> {
            // PostgreSQL 15 may still count earlier transactions of the backend here (they are flushed when it is
            // idle, not at every commit), so count the difference within this transaction
            long before = heldReads();
            GenerationCursor locked = generations.lockGeneration(generation).orElseThrow();
            applier.apply(locked, parsed);
            return heldReads() - before;
        });
    }

    /** Scans of the held-event tables that this backend has not yet reported. */
    private long heldReads() {
        return jdbc.sql("""
                SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) FROM pg_stat_xact_user_tables
                 WHERE relname LIKE 'held_event%'
                """).query(Long.class).single();
    }

    private static Change item(CatalogHistory h, String id) {
        return h.upsertItem(id, CatalogHistory.attributes(id, 100, "black"));
    }
}
