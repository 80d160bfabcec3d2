package com.acme.catalog.product.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A batch's writes read rows of the aggregates it touches, not of the whole generation. In particular the
 * public-view refresh of a batch reads rows of the items it refreshes, not of the whole generation. A live
 * generation starts empty and is not analyzed while it grows; with the planner's row estimates of such a
 * generation, the refresh used to read every item revision of the generation for each batch that touched a release
 * (docs/benchmarks-archive.md, "the public-view refresh driven by its item ids"). Counted with the transaction's own table statistics
 * ({@code pg_stat_xact_user_tables}), so the test does not depend on timing.
 */
class BatchReadCostIT extends ProductIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ITEMS = 3000;
    private static final String SQL_ROWS_READ = """
            SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0)
              FROM pg_stat_xact_user_tables WHERE relname = ?
            """;

    @Autowired
    GenerationRepository generations;
    @Autowired
    ProjectionWriter writer;
    @Autowired
    TransactionTemplate tx;

    private long position;

    @Test
    void refreshingOneItemReadsRowsOfThatItemOnly() {
        StreamId stream = new StreamId("acme", "refresh-cost");
        long g = generationOfItems(stream);

        long read = tx.execute(s -> {
            String revisions = GenerationStorage.partitionOf("aggregate_revision", g);
            long before = rowsRead(revisions);
            ObjectNode p = JSON.createObjectNode().put("visibility", "PUBLIC");
            p.putArray("items").addObject().put("itemId", "sku-7").put("revision", 1);
            ProjectionBatch release = writer.batch(g);
            release.add(event(stream, EventType.ReleasePublished, "release", "release-1", 1, p));
            writer.flush(release);
            return rowsRead(revisions) - before;
        });

        assertThat(jdbc.sql("SELECT item_id FROM public_item WHERE generation_id = ?").params(g)
                .query(String.class).list()).containsExactly("sku-7");
        assertThat(read).as("item revision rows read to refresh one item's public view").isLessThanOrEqualTo(10);
    }

    /** A new serving generation of {@code stream} holding ITEMS live items sku-1…sku-ITEMS at revision 1. */
    private long generationOfItems(StreamId stream) {
        long g = tx.execute(s -> generations.startServingEmpty(stream, 1)).generationId();
        tx.executeWithoutResult(s -> {
            ProjectionBatch items = writer.batch(g);
            for (int i = 1; i <= ITEMS; i++) {
                ObjectNode p = JSON.createObjectNode();
                p.putObject("attributes").put("name", "Trail runner " + i).put("color", "blue");
                items.add(event(stream, EventType.ItemUpserted, "item", "sku-" + i, 1, p));
            }
            writer.flush(items);
        });
        return g;
    }

    @Test
    void upsertingOneItemReadsRowsOfThatItemOnly() {
        StreamId stream = new StreamId("acme", "upsert-cost");
        long g = generationOfItems(stream);

        long[] read = tx.execute(s -> {
            String items = GenerationStorage.partitionOf("item", g);
            String revisions = GenerationStorage.partitionOf("aggregate_revision", g);
            String publicItems = GenerationStorage.partitionOf("public_item", g);
            long[] before = {rowsRead(items), rowsRead(revisions), rowsRead(publicItems)};
            ObjectNode p = JSON.createObjectNode();
            p.putObject("attributes").put("name", "Road runner").put("color", "red");
            ProjectionBatch upsert = writer.batch(g);
            upsert.add(event(stream, EventType.ItemUpserted, "item", "sku-7", 2, p));
            upsert.add(event(stream, EventType.ItemDeleted, "item", "sku-8", 2, JSON.createObjectNode()));
            writer.flush(upsert);
            return new long[] {rowsRead(items) - before[0], rowsRead(revisions) - before[1],
                    rowsRead(publicItems) - before[2]};
        });

        assertThat(java.util.Arrays.stream(read).boxed().toList()).as("item, revision and public rows read to write two items of a %d-item generation", ITEMS)
                .allSatisfy(rows -> assertThat(rows).isLessThanOrEqualTo(10));
    }

    private long rowsRead(String table) {
        return jdbc.sql(SQL_ROWS_READ).params(table).query(Long.class).single();
    }

    private IntegrationEvent event(StreamId stream, EventType type, String aggregateType, String id, int revision,
            JsonNode payload) {
        long p = ++position;
        return new IntegrationEvent("{}", ChainDigest.ZERO, stream, 1, p, UUID.randomUUID(), type.name(), type,
                aggregateType, id, revision, new ArrayList<>(List.of()), payload);
    }
}
