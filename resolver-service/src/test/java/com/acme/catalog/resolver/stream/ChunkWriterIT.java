package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * Differential test of the batched write path: the same random physical transactions (several logical
 * transactions of several changes each, including ones that must fail) go through
 * {@link StreamWriter#appendLocked} into one stream and {@link ChunkWriter#appendLocked} into another. Outcomes,
 * current rows, revision history and outbox content must be identical except for the fresh ids and timestamps.
 */
class ChunkWriterIT extends ResolverIT {

    private static final StreamId REFERENCE = new StreamId("acme", "chunk-ref");
    private static final StreamId BATCHED = new StreamId("acme", "chunk-batched");

    @Autowired
    StreamWriter writer;
    @Autowired
    ChunkWriter chunkWriter;
    @Autowired
    TransactionTemplate tx;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    ObjectMapper json;

    /** Item revisions as they would be if every change so far in the round succeeded (guides release refs). */
    private Map<String, Integer> tentative;

    @Test
    void batchedPathLeavesTheSameRowsAsOneStatementPerWrite() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String context = "seed " + seed;
        int failures = 0;
        for (int round = 0; round < 150; round++) {
            tentative = new HashMap<>(jdbc.sql("SELECT item_id, revision FROM item WHERE tenant = ? AND catalog = ?")
                    .params(REFERENCE.tenant(), REFERENCE.catalog())
                    .query((rs, n) -> Map.entry(rs.getString(1), rs.getInt(2))).list().stream()
                    .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
            List<List<Change>> transactions = randomTransactions(random);
            String reference = outcome(() -> writer.appendLocked(REFERENCE, transactions))
                    .replace(REFERENCE.toString(), "STREAM");
            String batched = outcome(() -> chunkWriter.appendLocked(BATCHED, transactions))
                    .replace(BATCHED.toString(), "STREAM");
            assertThat(batched).as("round %d, %s", round, context).isEqualTo(reference);
            if (!reference.equals("ok")) {
                failures++;
            }
        }
        // most of the 150 seeded rounds end in a refusal by design (115-127 seen); the bounds say both outcomes occur
        // (the old bound of 120 failed on some seeds)
        assertThat(failures).as(context).isPositive().isLessThan(150);

        for (String table : List.of(
                "SELECT item_id, revision, attributes::text, deleted, epoch, position FROM item",
                "SELECT mapping_id, revision, source, target, epoch, position FROM mapping",
                "SELECT policy_id, revision, rules::text, epoch, position FROM policy",
                "SELECT release_id, revision, visibility, items::text, epoch, position FROM release",
                "SELECT aggregate_type, aggregate_id, revision, content::text, deleted, epoch, position "
                        + "FROM accepted_revision")) {
            assertThat(rows(table, BATCHED)).as(table + ", " + context).isEqualTo(rows(table, REFERENCE))
                    .isNotEmpty();
        }
        String outbox = "SELECT epoch, position, transaction_ordinal, transaction_count, event_type, aggregate_type, "
                + "aggregate_id, revision FROM outbox";
        assertThat(rows(outbox, BATCHED)).as(context).isEqualTo(rows(outbox, REFERENCE));
        assertThat(normalizedWires(BATCHED)).as(context).isEqualTo(normalizedWires(REFERENCE));
        assertThat(transactionShapes(BATCHED)).as(context).isEqualTo(transactionShapes(REFERENCE));
        verifyChain(BATCHED);
    }

    private List<List<Change>> randomTransactions(Random random) {
        List<List<Change>> transactions = new ArrayList<>();
        int n = 1 + random.nextInt(6);
        for (int t = 0; t < n; t++) {
            List<Change> changes = new ArrayList<>();
            int m = 1 + random.nextInt(3);
            for (int c = 0; c < m; c++) {
                changes.add(randomChange(random));
            }
            transactions.add(changes);
        }
        return transactions;
    }

    private Change randomChange(Random random) {
        String item = "sku-" + random.nextInt(12);
        int kind = random.nextInt(100);
        if (kind < 58) {
            tentative.merge(item, 1, Integer::sum);
        }
        if (kind < 45) {
            Integer expected = random.nextInt(10) == 0 ? random.nextInt(4) : null;
            return new Change.UpsertItem(item, json.readTree("{\"n\":" + random.nextInt(1000) + ",\"s\":\"a\\\"b\"}"),
                    expected);
        }
        if (kind < 58) {
            return new Change.DeleteItem(item, random.nextInt(8) == 0 ? random.nextInt(4) : null);
        }
        if (kind < 70) {
            return new Change.UpsertMapping("map-" + random.nextInt(5), "src-" + random.nextInt(9),
                    "dst-" + random.nextInt(9));
        }
        if (kind < 78) {
            return new Change.UpsertPolicy("pol-" + random.nextInt(3),
                    json.readTree("{\"max\":" + random.nextInt(50) + "}"));
        }
        List<Change.ItemRef> refs = new ArrayList<>();
        int k = 1 + random.nextInt(3);
        for (int i = 0; i < k; i++) {
            String ref = "sku-" + random.nextInt(12);
            int revision = tentative.getOrDefault(ref, 0) - (random.nextInt(4) == 0 ? 1 : 0);
            refs.add(new Change.ItemRef(ref, Math.max(1, revision)));
        }
        return new Change.PutRelease("rel-" + random.nextInt(4), random.nextBoolean() ? "PUBLIC" : "PRIVATE",
                List.copyOf(refs));
    }

    private String outcome(Runnable write) {
        try {
            tx.executeWithoutResult(status -> write.run());
            return "ok";
        } catch (ApiException e) {
            return e.code() + ": " + e.getMessage();
        }
    }

    private List<Map<String, Object>> rows(String select, StreamId s) {
        return jdbc.sql(select + " WHERE tenant = ? AND catalog = ? ORDER BY 1, 2, 3")
                .params(s.tenant(), s.catalog()).query().listOfRows();
    }

    private List<String> normalizedWires(StreamId s) {
        return jdbc.sql("SELECT wire FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position")
                .params(s.tenant(), s.catalog()).query(String.class).list().stream()
                .map(w -> {
                    var node = (tools.jackson.databind.node.ObjectNode) json.readTree(w);
                    node.remove(List.of("catalog", "eventId", "transactionId", "occurredAt"));
                    return node.toString();
                }).toList();
    }

    /** Positions grouped by transaction id, in position order: the logical transaction structure. */
    private List<List<Long>> transactionShapes(StreamId s) {
        List<Map<String, Object>> rows = jdbc.sql("""
                SELECT transaction_id, position FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position
                """).params(s.tenant(), s.catalog()).query().listOfRows();
        List<List<Long>> shapes = new ArrayList<>();
        Object last = null;
        for (Map<String, Object> r : rows) {
            if (!r.get("transaction_id").equals(last)) {
                shapes.add(new ArrayList<>());
                last = r.get("transaction_id");
            }
            shapes.get(shapes.size() - 1).add(((Number) r.get("position")).longValue());
        }
        return shapes;
    }

    private void verifyChain(StreamId s) {
        String digest = ChainDigest.ZERO;
        for (Map<String, Object> r : jdbc.sql(
                "SELECT wire, chain_digest FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position")
                .params(s.tenant(), s.catalog()).query().listOfRows()) {
            digest = ChainDigest.next(digest, (String) r.get("wire"));
            assertThat(r.get("chain_digest")).isEqualTo(digest);
        }
        assertThat(jdbc.sql("SELECT chain_digest FROM stream_cursor WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(String.class).single()).isEqualTo(digest);
    }
}
