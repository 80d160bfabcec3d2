package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.GenerationStorage;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.projection.ProjectionBatch;
import com.acme.catalog.product.projection.ProjectionWriter;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Streams opened empty share the tables' shared partitions (docs/streams.md, "How generations are stored"): opening
 * one creates no relation, their rows stay apart by generation, and retiring one deletes its rows only, without
 * waiting for readers.
 */
class SharedGenerationIT extends ProductIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SQL_RELATIONS = """
            SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace
            """;

    @Autowired
    GenerationRepository generations;
    @Autowired
    ProjectionWriter writer;
    @Autowired
    GenerationRetirer retirer;
    @Autowired
    TransactionTemplate tx;
    @Autowired
    DataSource dataSource;

    private long position;

    @Test
    void openingAStreamCreatesNoRelation() {
        long before = jdbc.sql(SQL_RELATIONS).query(Long.class).single();

        List<Long> opened = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            StreamId s = new StreamId("quiet", "c" + i);
            opened.add(tx.execute(t -> generations.startServingEmpty(s, 1)).generationId());
        }

        assertThat(jdbc.sql(SQL_RELATIONS).query(Long.class).single()).as("relations after opening 50 streams")
                .isEqualTo(before);
        assertThat(opened).allSatisfy(g -> assertThat(GenerationStorage.isShared(g)).isTrue()).doesNotHaveDuplicates();
        assertThat(jdbc.sql("SELECT bool_and(shared) FROM generation WHERE tenant = 'quiet'").query(Boolean.class)
                .single()).isTrue();
    }

    @Test
    void sharedGenerationsKeepTheirRowsApart() {
        long shoes = openWithPublicItem(new StreamId("apart", "shoes"), "Trail runner");
        long hats = openWithPublicItem(new StreamId("apart", "hats"), "Sun hat");

        assertThat(publicNames(shoes)).containsExactly("Trail runner");
        assertThat(publicNames(hats)).containsExactly("Sun hat");
        assertThat(jdbc.sql("SELECT count(*) FROM item_shared WHERE generation_id IN (?, ?)").params(shoes, hats)
                .query(Long.class).single()).as("both live in the shared partition").isEqualTo(2);
    }

    /**
     * A reader holding a snapshot of the generation (and ACCESS SHARE on the shared partitions) does not hold the
     * retire up, and keeps its answer; the other generations' rows stay. Without the shared retire the generation's
     * rows would stay behind (it has no partitions of its own to detach).
     */
    @Test
    void retiringASharedGenerationDeletesItsRowsOnlyAndWaitsForNoReader() throws Exception {
        StreamId gone = new StreamId("retire", "gone");
        long old = openWithPublicItem(gone, "Old boot");
        long kept = openWithPublicItem(new StreamId("retire", "kept"), "Kept boot");
        jdbc.sql("DELETE FROM serving_generation WHERE tenant = ? AND catalog = ?").params(gone.tenant(),
                gone.catalog()).update(); // what a cutover to another generation leaves: the old one serves no more

        try (Connection reader = dataSource.getConnection()) {
            reader.setAutoCommit(false);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertThat(countPublic(reader, old)).isEqualTo(1);

            boolean retired = CompletableFuture.supplyAsync(() -> retirer.retire(old)).get(10, TimeUnit.SECONDS);

            assertThat(retired).isTrue();
            assertThat(countPublic(reader, old)).as("the reader's snapshot still answers").isEqualTo(1);
            reader.commit();
        }
        for (String table : jdbc.sql("SELECT unnest(generation_tables())").query(String.class).list()) {
            assertThat(jdbc.sql("SELECT count(*) FROM " + table + " WHERE generation_id = ?").params(old)
                    .query(Long.class).single()).as(table).isZero();
        }
        assertThat(publicNames(kept)).containsExactly("Kept boot");
        assertThat(jdbc.sql("SELECT status FROM generation WHERE generation_id = ?").params(old).query(String.class)
                .single()).isEqualTo("RETIRED");
        assertThat(retirer.retire(kept)).as("a serving generation is never retired").isFalse();
        assertThat(publicNames(kept)).containsExactly("Kept boot");
    }

    private long openWithPublicItem(StreamId stream, String name) {
        long g = tx.execute(t -> generations.startServingEmpty(stream, 1)).generationId();
        tx.executeWithoutResult(t -> {
            ProjectionBatch batch = writer.batch(g);
            ObjectNode item = JSON.createObjectNode();
            item.putObject("attributes").put("name", name);
            batch.add(event(stream, EventType.ItemUpserted, "item", "sku-1", item));
            ObjectNode release = JSON.createObjectNode().put("visibility", "PUBLIC");
            release.putArray("items").addObject().put("itemId", "sku-1").put("revision", 1);
            batch.add(event(stream, EventType.ReleasePublished, "release", "r0", release));
            writer.flush(batch);
        });
        return g;
    }

    private List<String> publicNames(long g) {
        return jdbc.sql("SELECT attributes ->> 'name' FROM public_item WHERE generation_id = ? ORDER BY item_id")
                .params(g).query(String.class).list();
    }

    private static long countPublic(Connection c, long g) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM public_item WHERE generation_id = " + g)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private IntegrationEvent event(StreamId stream, EventType type, String aggregateType, String id,
            ObjectNode payload) {
        long p = ++position;
        return new IntegrationEvent("{}", ChainDigest.ZERO, stream, 1, p, UUID.randomUUID(), type.name(), type,
                aggregateType, id, 1, new ArrayList<>(List.of()), payload);
    }
}
