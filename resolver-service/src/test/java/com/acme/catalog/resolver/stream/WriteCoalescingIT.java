package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Write coalescing through the REST API on real PostgreSQL: concurrent writes of one stream share physical
 * transactions, yet each keeps its own transaction id, positions and outcome, and the stream ends exactly as if
 * the same writes had been committed one by one in the same order.
 */
class WriteCoalescingIT extends ResolverIT {

    private static final int THREADS = 8;
    private static final int WRITES_PER_THREAD = Integer.getInteger("coalescing.writes", 40);

    @Autowired
    JdbcClient jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    ObjectMapper json;
    @Autowired
    StreamWriter writer;
    @Autowired
    MeterRegistry registry;
    @Autowired
    org.springframework.transaction.support.TransactionTemplate tx;
    @Autowired
    CursorRepository cursors;
    @Autowired
    ChunkWriter chunkWriter;
    @Autowired
    AcceptedStateRepository state;
    @Autowired
    OutboxRepository outbox;
    @Autowired
    StreamMetrics metrics;

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void concurrentWritesShareCommitsAndKeepTheirOwnPositionsAndIds() throws Exception {
        long seed = System.nanoTime();
        String context = "seed " + seed;
        StreamId stream = new StreamId("acme", "coalesce");
        // per instance (docs/metrics.md): this test's share is the difference; this class's tests run one at a time
        var coalesced = registry.get("resolver.write.coalesced.transactions").summary();
        double amountBefore = coalesced.totalAmount();
        long commitsBefore = coalesced.count();
        List<CompletableFuture<List<Sent>>> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Random random = new Random(seed + t);
            int thread = t;
            threads.add(CompletableFuture.supplyAsync(() -> {
                List<Sent> sent = new ArrayList<>();
                for (int i = 0; i < WRITES_PER_THREAD; i++) {
                    // shared item ids across threads, so revisions and dependencies interleave
                    List<String> items = new ArrayList<>();
                    int n = 1 + random.nextInt(3);
                    for (int c = 0; c < n; c++) {
                        items.add("sku-" + random.nextInt(10));
                    }
                    String body = transaction(items, thread, i);
                    Response r = post("/v1/streams/acme/coalesce/transactions", "w", body);
                    sent.add(new Sent(body, items, r));
                }
                return sent;
            }, pool));
        }
        List<Sent> all = new ArrayList<>();
        for (CompletableFuture<List<Sent>> f : threads) {
            all.addAll(f.get(2, TimeUnit.MINUTES));
        }

        long events = 0;
        Set<String> ids = new HashSet<>();
        for (Sent s : all) {
            assertThat(s.response.status()).as("%s: %s", context, s.response.raw()).isEqualTo(200);
            long first = s.response.number("firstPosition");
            long last = s.response.number("lastPosition");
            assertThat(last - first + 1).as(context).isEqualTo(s.items.size());
            String txId = s.response.text("transactionId");
            assertThat(ids.add(txId)).as("transaction id %s given once, %s", txId, context).isTrue();
            List<Map<String, Object>> rows = jdbc.sql("""
                    SELECT transaction_id::text AS tx, aggregate_id, transaction_ordinal, transaction_count FROM outbox
                     WHERE tenant = 'acme' AND catalog = 'coalesce' AND position BETWEEN ? AND ? ORDER BY position
                    """).params(first, last).query().listOfRows();
            assertThat(rows).as(context).hasSize(s.items.size());
            for (int i = 0; i < rows.size(); i++) {
                assertThat(rows.get(i).get("tx")).as(context).isEqualTo(txId);
                assertThat(rows.get(i).get("aggregate_id")).as(context).isEqualTo(s.items.get(i));
                assertThat(rows.get(i).get("transaction_ordinal")).isEqualTo(i);
                assertThat(rows.get(i).get("transaction_count")).isEqualTo(s.items.size());
            }
            events += s.items.size();
        }
        assertGapless(stream, events);

        // coalescing happened: fewer physical commits than logical writes
        assertThat((long) (coalesced.totalAmount() - amountBefore)).isEqualTo(all.size());
        assertThat(coalesced.count() - commitsBefore).as(context).isLessThan(all.size());
        assertThat(coalesced.max()).as(context).isGreaterThan(1);

        // the same logical writes, in commit order, one physical transaction each, into another stream
        all.sort(Comparator.comparingLong(s -> s.response.number("firstPosition")));
        StreamId replay = new StreamId("acme", "coalesce-replay");
        for (Sent s : all) {
            writer.writeAll(replay, List.of(ChangeParser.transaction(json.readTree(s.body))));
        }
        assertSameState(stream, replay, context);
    }

    @Test
    void aFailingWriteInACoalescedGroupGetsItsOwnErrorAndNothingOfItIsWritten() throws Exception {
        StreamId stream = new StreamId("acme", "isolate");
        assertThat(put("/v1/streams/acme/isolate/items/warm", "w", "{\"attributes\":{}}").status()).isEqualTo(200);
        double retriesBefore = retries();
        List<CompletableFuture<Response>> good = new ArrayList<>();
        List<CompletableFuture<Response>> bad = new ArrayList<>();
        CompletableFuture<Response> leader;
        try (Connection holder = dataSource.getConnection()) {
            // hold the cursor row so the first write waits under the lock and the others queue behind it
            holder.setAutoCommit(false);
            holder.createStatement().execute(
                    "SELECT 1 FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'isolate' FOR UPDATE");
            leader = async(() -> put("/v1/streams/acme/isolate/items/lead", "w", "{\"attributes\":{}}"));
            awaitLockWaiter();
            for (int i = 0; i < 6; i++) {
                String item = "ok-" + i;
                good.add(async(() -> put("/v1/streams/acme/isolate/items/" + item, "w",
                        "{\"attributes\":{\"n\":1}}")));
            }
            // a wrong expected revision in the second change of a transaction: its first change must not stay
            bad.add(async(() -> post("/v1/streams/acme/isolate/transactions", "w", """
                    {"changes":[{"op":"upsertItem","itemId":"bad-a","attributes":{}},
                                {"op":"upsertItem","itemId":"bad-b","attributes":{},"expectedRevision":4}]}""")));
            bad.add(async(() -> delete("/v1/streams/acme/isolate/items/bad-missing", "w")));
            bad.add(async(() -> put("/v1/streams/acme/isolate/releases/bad-release", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"bad-nothing\",\"revision\":1}]}")));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (writer.queued(stream) < 9) {
                assertThat(System.nanoTime()).as("9 writes queued").isLessThan(deadline);
                Thread.sleep(5);
            }
            holder.rollback();
        }
        assertThat(leader.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        for (CompletableFuture<Response> f : good) {
            Response r = f.get(30, TimeUnit.SECONDS);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.number("revision")).isEqualTo(1);
        }
        Response conflict = bad.get(0).get(30, TimeUnit.SECONDS);
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.code()).isEqualTo("REVISION_CONFLICT");
        assertThat(conflict.contentType()).startsWith("application/problem+json");
        assertThat(bad.get(1).get(30, TimeUnit.SECONDS).code()).isEqualTo("NOT_FOUND");
        assertThat(bad.get(2).get(30, TimeUnit.SECONDS).code()).isEqualTo("REVISION_CONFLICT");

        for (String table : List.of("outbox", "accepted_revision")) {
            assertThat(jdbc.sql("SELECT count(*) FROM " + table
                    + " WHERE tenant = 'acme' AND catalog = 'isolate' AND aggregate_id LIKE 'bad-%'")
                    .query(Long.class).single()).as(table).isZero();
        }
        assertThat(jdbc.sql("SELECT count(*) FROM item WHERE tenant = 'acme' AND catalog = 'isolate' "
                + "AND item_id LIKE 'bad-%'").query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT count(*) FROM release WHERE tenant = 'acme' AND catalog = 'isolate'")
                .query(Long.class).single()).isZero();
        assertGapless(stream, 8);
        assertThat(retries() - retriesBefore).isEqualTo(3);
        // the recent maximum of the instance: at least this group of 6
        assertThat(registry.get("resolver.write.coalesced.transactions").summary().max()).isGreaterThanOrEqualTo(6);
    }

    /**
     * Two resolver "instances" (two writers, each with its own coalescer) write one stream at once: only the
     * cursor row lock serializes them. Removing its {@code FOR UPDATE} makes writes fail here (checked by hand).
     */
    @Test
    void twoInstancesWritingOneStreamStayGapless() throws Exception {
        StreamId stream = new StreamId("acme", "two-nodes");
        StreamWriter other = new StreamWriter(tx, cursors, chunkWriter, state, outbox, json, metrics,
                new CoalescingProperties(true, 64, 500, 1 << 22, Duration.ofMillis(2), 0)); // this one lingers
        List<CompletableFuture<List<WriteResult>>> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            StreamWriter node = t % 2 == 0 ? writer : other;
            int thread = t;
            threads.add(CompletableFuture.supplyAsync(() -> {
                List<WriteResult> out = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    out.add(node.write(stream, List.of(ChangeParser.upsertItem("sku-" + (i % 5),
                            json.readTree("{\"attributes\":{\"t\":" + thread + "}}")))));
                }
                return out;
            }, pool));
        }
        Set<String> ids = new HashSet<>();
        for (CompletableFuture<List<WriteResult>> f : threads) {
            for (WriteResult r : f.get(2, TimeUnit.MINUTES)) {
                assertThat(ids.add(r.transactionId().toString())).isTrue();
            }
        }
        assertGapless(stream, 320);
        assertThat(jdbc.sql("SELECT sum(revision) FROM item WHERE tenant = 'acme' AND catalog = 'two-nodes'")
                .query(Long.class).single()).isEqualTo(320L);
    }

    /**
     * A write made inside a caller's transaction joins that transaction, so it must never lead a group carrying
     * other callers' writes: when the caller rolls back, their writes would vanish after they were told committed.
     */
    @Test
    void aWriteInsideACallersTransactionNeverCarriesOtherWrites() throws Exception {
        StreamId stream = new StreamId("acme", "joined");
        assertThat(put("/v1/streams/acme/joined/items/warm", "w", "{\"attributes\":{}}").status()).isEqualTo(200);
        CompletableFuture<WriteResult> inside;
        CompletableFuture<Response> bystander;
        CompletableFuture<Response> leader;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute(
                    "SELECT 1 FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'joined' FOR UPDATE");
            leader = async(() -> put("/v1/streams/acme/joined/items/lead", "w", "{\"attributes\":{}}"));
            awaitLockWaiter();
            inside = async(() -> tx.execute(status -> {
                WriteResult r = writer.write(stream, List.of(ChangeParser.upsertItem("inside",
                        json.readTree("{\"attributes\":{}}"))));
                status.setRollbackOnly();
                return r;
            }));
            Thread.sleep(200);
            bystander = async(() -> put("/v1/streams/acme/joined/items/bystander", "w", "{\"attributes\":{}}"));
            Thread.sleep(200);
            holder.rollback();
        }
        assertThat(leader.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        inside.get(30, TimeUnit.SECONDS);
        Response r = bystander.get(30, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(jdbc.sql("SELECT item_id FROM item WHERE tenant = 'acme' AND catalog = 'joined' ORDER BY 1")
                .query(String.class).list()).containsExactly("bystander", "lead", "warm");
    }

    @Test
    void theBufferedWriteWakesTheRelayAtCommit() throws Exception {
        try (Connection listener = dataSource.getConnection()) {
            listener.setAutoCommit(true);
            listener.createStatement().execute("LISTEN outbox_committed");
            assertThat(put("/v1/streams/acme/notify/items/x", "w", "{\"attributes\":{}}").status()).isEqualTo(200);
            PGConnection pg = listener.unwrap(PGConnection.class);
            var notes = pg.getNotifications(10_000);
            assertThat(notes).isNotNull();
            assertThat(List.of(notes).stream().map(n -> n.getParameter()).toList()).contains("acme/notify/1");
            listener.createStatement().execute("UNLISTEN outbox_committed");
        }
    }

    @Test
    void springSecurityObservationsAreOffButRequestMetricsStay() {
        assertThat(put("/v1/streams/acme/observe/items/x", "w", "{\"attributes\":{}}").status()).isEqualTo(200);
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).contains("http_server_requests_seconds_count").doesNotContain("spring_security_");
    }

    /** Per instance (docs/metrics.md): this class's tests run one at a time, so a difference is one test's. */
    private double retries() {
        var c = registry.find("resolver.write.retries").counter();
        return c == null ? 0 : c.count();
    }

    private void awaitLockWaiter() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock'").query(Long.class).single() == 0) {
            assertThat(System.nanoTime()).as("a write waiting for the cursor lock").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private <T> CompletableFuture<T> async(java.util.function.Supplier<T> s) {
        return CompletableFuture.supplyAsync(s, pool);
    }

    private String transaction(List<String> items, int thread, int i) {
        StringBuilder b = new StringBuilder("{\"changes\":[");
        for (int c = 0; c < items.size(); c++) {
            if (c > 0) {
                b.append(',');
            }
            b.append("{\"op\":\"upsertItem\",\"itemId\":\"").append(items.get(c))
                    .append("\",\"attributes\":{\"t\":").append(thread).append(",\"i\":").append(i).append("}}");
        }
        return b.append("]}").toString();
    }

    private void assertGapless(StreamId s, long events) {
        List<Map<String, Object>> rows = jdbc.sql("""
                SELECT position, wire, chain_digest FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position
                """).params(s.tenant(), s.catalog()).query().listOfRows();
        assertThat(rows).hasSize((int) events);
        String digest = ChainDigest.ZERO;
        for (int i = 0; i < rows.size(); i++) {
            assertThat(((Number) rows.get(i).get("position")).longValue()).isEqualTo(i + 1L);
            digest = ChainDigest.next(digest, (String) rows.get(i).get("wire"));
            assertThat(rows.get(i).get("chain_digest")).isEqualTo(digest);
        }
        assertThat(jdbc.sql("SELECT position FROM stream_cursor WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(Long.class).single()).isEqualTo(events);
    }

    private void assertSameState(StreamId a, StreamId b, String context) {
        JsonNode ca = get("/v1/streams/" + a.tenant() + "/" + a.catalog() + "/state-checksum", "op").body();
        JsonNode cb = get("/v1/streams/" + b.tenant() + "/" + b.catalog() + "/state-checksum", "op").body();
        assertThat(ca.path("tables")).as(context).isEqualTo(cb.path("tables"));
        assertThat(ca.path("position")).isEqualTo(cb.path("position"));
        for (String table : List.of(
                "SELECT item_id, revision, attributes::text, deleted, epoch, position FROM item",
                "SELECT aggregate_type, aggregate_id, revision, content::text, deleted, epoch, position "
                        + "FROM accepted_revision",
                "SELECT position, transaction_ordinal, transaction_count, event_type, aggregate_id, revision FROM outbox")) {
            assertThat(rows(table, a)).as(table + ", " + context).isEqualTo(rows(table, b)).isNotEmpty();
        }
        assertThat(wires(a)).as(context).isEqualTo(wires(b));
    }

    private List<Map<String, Object>> rows(String select, StreamId s) {
        return jdbc.sql(select + " WHERE tenant = ? AND catalog = ? ORDER BY 1, 2, 3")
                .params(s.tenant(), s.catalog()).query().listOfRows();
    }

    /** Wire texts without what differs between two streams by construction (catalog, fresh ids, time). */
    private List<String> wires(StreamId s) {
        return jdbc.sql("SELECT wire FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position")
                .params(s.tenant(), s.catalog()).query(String.class).list().stream().map(w -> {
                    var node = (tools.jackson.databind.node.ObjectNode) json.readTree(w);
                    node.remove(List.of("catalog", "eventId", "transactionId", "occurredAt"));
                    return node.toString();
                }).toList();
    }

    private record Sent(String body, List<String> items, Response response) {
    }
}
