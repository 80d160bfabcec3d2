package com.acme.catalog.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.acme.catalog.testsupport.TestDatabase;

/**
 * The same-end-state floor of the rebuild scenario: plain SQL, no services, producing the tables, rows and indexes a
 * rebuild produces in a fresh dedicated generation, as cheaply as this machine allows. What a perfect rebuild costs.
 *
 * <p>The generation's tables come from the product's own schema: {@code generation_tables()},
 * {@code create_generation_table(g, t)} (shaped like the parents), {@code build_generation_index_parts(g, t)} (every
 * index of the parents: primary keys, {@code release_item_by_item}, the GIN index of the search documents) and
 * {@code attach_generation_tables_using_indexes(g)}, the functions the rebuild's load calls; the search document is the
 * product's {@code search_document}. A schema change is therefore followed here. The schedule is the load's
 * ({@code ShadowFill}): two connections, each step its own committed transaction, the same
 * {@code maintenance_work_mem}, JIT off. Connection A: items, the revision history, one half of the public view, the
 * history's index, the public rows of items released at an older revision; B: the small tables, the release items,
 * their indexes, the other half of the public view, the item index, and last the public view's indexes.
 *
 * <p>Approximations (also in the JSON's {@code floorNotes}):
 * <ul>
 * <li>export, object-store transfer and checksum verification do not exist: each table is
 * {@code COPY (SELECT …) TO STDOUT} out of the resolver's table (the exporter's SELECT, its order included) piped
 * into {@code COPY … FROM STDIN (FREEZE)} of the generation's plain table, so "load" is all three;</li>
 * <li>the releases' (epoch, position) are copied from the resolver's release rows (where their current revision was
 * made), not picked out of the history as the load does; the same values;</li>
 * <li>the public view's statements are copies of {@code PublicViewRows}' (package-private in product-service);
 * {@code floorMatchesRebuild} checks that the rows are the rebuild's;</li>
 * <li>the generation has no {@code generation} row (nothing the product's workers could see or retire): its id is
 * one far above the identity's, below the shared range; the attach (timed) is rolled back, so the tables never join
 * the parents the product reads, and the cursor update is left out;</li>
 * <li>the tail is applied after the rebuild finished (it is written while the rebuild loads, so it exists only
 * then), to the plain tables, in pages of the rebuild's page size, each page one transaction: the page's outbox rows
 * piped into a temporary table ("fetch"), then the revisions inserted, each item upserted at its last event of the
 * page and the inbox rows written ("apply"). No chain verification, revision check, dedupe or parking; only the
 * tail's event type, {@code ItemUpserted}, is supported (anything else fails the floor). Like the product's apply,
 * an item upsert leaves the public view alone (a release names the revision it publishes).</li>
 * </ul>
 */
final class RebuildFloor {

    /** The floor generation's id: far above any identity value of a benchmark database, below the shared range. */
    static final long G = 900_000_000_000_000L;

    private static final String SESSION = "SELECT set_config('maintenance_work_mem', ?, true), "
            + "set_config('jit', 'off', true)";

    /** The exporter's SELECTs (resolver SnapshotExporter), each followed by the generation's own columns. */
    private static final String ITEMS = """
            SELECT item_id, revision, deleted, attributes, %3$d, %4$d, %5$d FROM resolver.item
             WHERE tenant = '%1$s' AND catalog = '%2$s' ORDER BY item_id COLLATE "C"
            """;
    private static final String MAPPINGS = """
            SELECT mapping_id, revision, source, target, %3$d, %4$d, %5$d FROM resolver.mapping
             WHERE tenant = '%1$s' AND catalog = '%2$s' ORDER BY mapping_id COLLATE "C"
            """;
    private static final String POLICIES = """
            SELECT policy_id, revision, rules, %3$d, %4$d, %5$d FROM resolver.policy
             WHERE tenant = '%1$s' AND catalog = '%2$s' ORDER BY policy_id COLLATE "C"
            """;
    private static final String RELEASES = """
            SELECT release_id, revision, visibility, items, %3$d, epoch, position FROM resolver.release
             WHERE tenant = '%1$s' AND catalog = '%2$s' ORDER BY release_id COLLATE "C"
            """;
    private static final String REVISIONS = """
            SELECT aggregate_type, aggregate_id, revision, deleted, content, epoch, position, event_id, %3$d
              FROM resolver.accepted_revision
             WHERE tenant = '%1$s' AND catalog = '%2$s'
             ORDER BY aggregate_type COLLATE "C", aggregate_id COLLATE "C", revision
            """;

    /** PublicViewRows' statements, for generation {@value #G}. */
    private static final String DERIVE_RELEASE_ITEMS = """
            INSERT INTO release_item_g%1$d (generation_id, release_id, item_id, revision)
            SELECT r.generation_id, r.release_id, ref ->> 'itemId', max((ref ->> 'revision')::integer)
              FROM release_g%1$d r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
             GROUP BY r.generation_id, r.release_id, ref ->> 'itemId'
            """;
    private static final String WINNERS = """
            SELECT DISTINCT ON (ri.item_id) ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch,
                   r.position
              FROM release_item_g%1$d ri JOIN release_g%1$d r ON r.release_id = ri.release_id
             WHERE r.visibility = 'PUBLIC' %2$s
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    private static final String PUBLIC_VIEW = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position, i.attributes,
                   search_document(i.attributes, w.item_id)
              FROM (%2$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision = w.revision AND NOT i.deleted
            """;
    private static final String PUBLIC_VIEW_OLDER_REVISIONS = """
            INSERT INTO public_item_g%1$d (generation_id, item_id, revision, release_id, release_epoch,
                                           release_position, attributes, document)
            SELECT w.generation_id, w.item_id, w.revision, w.release_id, w.epoch, w.position,
                   a.content -> 'attributes', search_document(a.content -> 'attributes', w.item_id)
              FROM (%2$s) w
              JOIN item_g%1$d i ON i.item_id = w.item_id AND i.revision <> w.revision AND NOT i.deleted
              JOIN aggregate_revision_g%1$d a ON a.aggregate_type = 'item' AND a.aggregate_id = w.item_id
                                             AND a.revision = w.revision AND NOT a.deleted
            """;

    /** One page of the tail, out of the resolver's outbox. */
    private static final String PAGE = """
            SELECT position, event_id, event_type, aggregate_type, aggregate_id, revision,
                   (wire::jsonb) -> 'payload', chain_digest
              FROM resolver.outbox
             WHERE tenant = '%1$s' AND catalog = '%2$s' AND epoch = %3$d AND position > %4$d AND position <= %5$d
             ORDER BY position
            """;
    private static final String APPLY_REVISIONS = """
            INSERT INTO aggregate_revision_g%1$d (generation_id, aggregate_type, aggregate_id, revision, content,
                                                  deleted, epoch, position, event_id)
            SELECT %1$d, aggregate_type, aggregate_id, revision, payload, false, %2$d, position, event_id
              FROM floor_page
            """;
    private static final String APPLY_ITEMS = """
            INSERT INTO item_g%1$d (generation_id, item_id, revision, attributes, deleted, epoch, position)
            SELECT DISTINCT ON (aggregate_id) %1$d, aggregate_id, revision, payload -> 'attributes', false, %2$d,
                   position
              FROM floor_page ORDER BY aggregate_id, position DESC
            ON CONFLICT (generation_id, item_id) DO UPDATE
               SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String APPLY_INBOX = """
            INSERT INTO inbox_g%1$d (generation_id, position, event_id, event_type, outcome, chain_digest)
            SELECT %1$d, position, event_id, event_type, 'APPLIED', chain_digest FROM floor_page
            """;

    static final List<String> NOTES = List.of(
            "export, object-store transfer and checksum verification: none; each table is piped COPY TO STDOUT out "
                    + "of the resolver (the exporter's SELECT and order) into COPY FROM STDIN (FREEZE): load = all three",
            "tables and indexes from the product's SQL functions (generation_tables, create_generation_table, "
                    + "build_generation_index_parts, attach_generation_tables_using_indexes, search_document)",
            "release (epoch, position) copied from the resolver's release rows instead of picked from the history",
            "public view statements copied from PublicViewRows (package-private); floorMatchesRebuild checks them",
            "no generation row; the timed attach is rolled back; no cursor update; no serving-pointer update "
                    + "(cutover 0)",
            "tail applied after the rebuild (it exists only then), set-based per page of pageLimit events, one "
                    + "transaction each: no chain check, revision check, dedupe or parking; ItemUpserted only");

    private final TestDatabase resolverDb;
    private final TestDatabase productDb;
    private final String memory;
    private final Map<String, Long> nanos = new ConcurrentHashMap<>();

    RebuildFloor(TestDatabase resolverDb, TestDatabase productDb, String memory) {
        this.resolverDb = resolverDb;
        this.productDb = productDb;
        this.memory = memory;
    }

    /**
     * Loads the resolver's current state at {@code w} (epoch {@code epoch}) into the floor generation: copy, derived
     * rows, indexes, then the attach, timed and rolled back.
     */
    void load(long epoch, long w) throws Exception {
        long start = System.nanoTime();
        CompletableFuture<Void> itemsCopied = new CompletableFuture<>();
        CompletableFuture<Void> historyCopied = new CompletableFuture<>();
        CompletableFuture<Void> smallCopied = new CompletableFuture<>();
        CompletableFuture<Void> olderWritten = new CompletableFuture<>();
        long[] copiedAt = new long[1];
        Runnable copied = () -> {
            synchronized (copiedAt) {
                if (copiedAt[0] == 0 && itemsCopied.isDone() && historyCopied.isDone() && smallCopied.isDone()) {
                    copiedAt[0] = System.nanoTime();
                    nanos.put("copy", copiedAt[0] - start);
                }
            }
        };
        List<CompletableFuture<?>> all = List.of(itemsCopied, historyCopied, smallCopied, olderWritten);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection outA = resolverDb.connect(); Connection outB = resolverDb.connect();
             Connection a = productDb.connect(); Connection b = productDb.connect()) {
            for (Connection c : List.of(a, b)) {
                exec(c, "SET search_path = product");
                c.setAutoCommit(false);
            }
            CompletableFuture<Void> chainA = CompletableFuture.runAsync(() -> guarded(all, () -> {
                inTx(a, () -> {
                    create(a, "item");
                    RebuildScenario.pipe(outA, copyOut(ITEMS, epoch, w), a, copyIn("item",
                            "item_id, revision, deleted, attributes, generation_id, epoch, position"));
                    exec(a, "ANALYZE item_g" + G);
                });
                itemsCopied.complete(null);
                inTx(a, () -> {
                    create(a, "aggregate_revision");
                    RebuildScenario.pipe(outA, copyOut(REVISIONS, epoch, w), a, copyIn("aggregate_revision",
                            "aggregate_type, aggregate_id, revision, deleted, content, epoch, position, event_id, "
                                    + "generation_id"));
                });
                historyCopied.complete(null);
                copied.run();
                smallCopied.join();
                timed("publicView.A", () -> inTx(a, () -> exec(a, publicHalf(0))));
                indexes(a, "aggregate_revision");
                inTx(a, () -> exec(a, "ANALYZE aggregate_revision_g" + G));
                timed("publicView.older", () -> inTx(a, () -> exec(a, String.format(Locale.ROOT,
                        PUBLIC_VIEW_OLDER_REVISIONS, G, String.format(Locale.ROOT, WINNERS, G, "")))));
                olderWritten.complete(null);
            }), pool);
            CompletableFuture<Void> chainB = CompletableFuture.runAsync(() -> guarded(all, () -> {
                inTx(b, () -> {
                    create(b, "mapping");
                    RebuildScenario.pipe(outB, copyOut(MAPPINGS, epoch, w), b, copyIn("mapping",
                            "mapping_id, revision, source, target, generation_id, epoch, position"));
                    create(b, "policy");
                    RebuildScenario.pipe(outB, copyOut(POLICIES, epoch, w), b, copyIn("policy",
                            "policy_id, revision, rules, generation_id, epoch, position"));
                    create(b, "release");
                    RebuildScenario.pipe(outB, copyOut(RELEASES, epoch, w), b, copyIn("release",
                            "release_id, revision, visibility, items, generation_id, epoch, position"));
                    for (String t : List.of("release_item", "public_item", "inbox", "held_event")) {
                        create(b, t);
                    }
                    timed("derive", () -> exec(b, String.format(Locale.ROOT, DERIVE_RELEASE_ITEMS, G)));
                    exec(b, "ANALYZE release_g" + G);
                    exec(b, "ANALYZE release_item_g" + G);
                });
                smallCopied.complete(null);
                indexes(b, "mapping", "policy", "release_item", "inbox", "held_event", "release");
                itemsCopied.join();
                historyCopied.join();
                copied.run();
                timed("publicView.B", () -> inTx(b, () -> exec(b, publicHalf(1))));
                indexes(b, "item");
                olderWritten.join();
                nanos.put("publicView", System.nanoTime() - copiedAt[0]);
                indexes(b, "public_item");
            }), pool);
            CompletableFuture.allOf(chainA, chainB).join();
            long loaded = System.nanoTime();
            nanos.put("loadWall", loaded - start);
            // the attach the load's last transaction makes, rolled back: no generation row names these tables
            try (Statement st = a.createStatement()) {
                st.execute("SELECT attach_generation_tables_using_indexes(" + G + ")");
            }
            a.rollback();
            nanos.put("attach", System.nanoTime() - loaded);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Applies the events after {@code after} through {@code head} in pages of {@code pageLimit}, each page one
     * transaction (see the class comment).
     */
    void applyTail(long epoch, long after, long head, int pageLimit) throws Exception {
        long fetch = 0;
        long apply = 0;
        int pages = 0;
        try (Connection out = resolverDb.connect(); Connection in = productDb.connect();
             Statement st = in.createStatement()) {
            st.execute("SET search_path = product");
            in.setAutoCommit(false);
            for (long from = after; from < head; from += pageLimit) {
                long to = Math.min(head, from + pageLimit);
                long t0 = System.nanoTime();
                st.execute("CREATE TEMP TABLE floor_page (position bigint, event_id uuid, event_type text, "
                        + "aggregate_type text, aggregate_id text, revision integer, payload jsonb, chain_digest text) "
                        + "ON COMMIT DROP");
                RebuildScenario.pipe(out, "COPY (" + String.format(Locale.ROOT, PAGE, RebuildSeed.T, RebuildSeed.C,
                        epoch, from, to).strip() + ") TO STDOUT WITH (FORMAT csv)", in,
                        "COPY floor_page FROM STDIN WITH (FORMAT csv)");
                long t1 = System.nanoTime();
                try (ResultSet rs = st.executeQuery("SELECT count(*), count(*) FILTER (WHERE event_type <> "
                        + "'ItemUpserted') FROM floor_page")) {
                    rs.next();
                    if (rs.getLong(1) != to - from || rs.getLong(2) != 0) {
                        throw new IllegalStateException("the floor's page after " + from + " holds " + rs.getLong(1)
                                + " event(s), " + rs.getLong(2) + " of a type it cannot apply");
                    }
                }
                long t2 = System.nanoTime();
                st.execute(String.format(Locale.ROOT, APPLY_REVISIONS, G, epoch));
                st.execute(String.format(Locale.ROOT, APPLY_ITEMS, G, epoch));
                st.execute(String.format(Locale.ROOT, APPLY_INBOX, G));
                in.commit();
                fetch += t1 - t0;
                apply += System.nanoTime() - t2;
                pages++;
            }
        }
        nanos.put("tailFetch", fetch);
        nanos.put("tailApply", apply);
        nanos.put("tailPages", (long) pages);
    }

    /** The floor's phases, in seconds (pages as a count). */
    Map<String, Object> phases() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("copy", s("copy"));
        m.put("derive", s("derive"));
        m.put("publicView", s("publicView"));
        m.put("indexes", s("indexes"));
        m.put("loadWall", s("loadWall"));
        m.put("attach", s("attach"));
        m.put("tailFetch", s("tailFetch"));
        m.put("tailApply", s("tailApply"));
        m.put("tailPages", nanos.getOrDefault("tailPages", 0L));
        return m;
    }

    /** @return load, attach and tail (fetch and apply), in seconds: the floor's end to end */
    double totalSeconds() {
        return Latencies.round((nanos.getOrDefault("loadWall", 0L) + nanos.getOrDefault("attach", 0L)
                + nanos.getOrDefault("tailFetch", 0L) + nanos.getOrDefault("tailApply", 0L)) / 1e9);
    }

    double seconds(String key) {
        return s(key);
    }

    private double s(String key) {
        return Latencies.round(nanos.getOrDefault(key, 0L) / 1e9);
    }

    /**
     * Compares the floor generation's tables with generation {@code other}'s (dedicated partitions of the same
     * product database): row count and an order-independent sum of per-row hashes (every column but
     * {@code generation_id} and {@code inbox.processed_at}).
     *
     * @return per table {@code {rows, rebuildRows, equal}} and {@code equal} over all
     */
    Map<String, Object> compare(long other) throws SQLException {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean all = true;
        try (Connection c = productDb.connect()) {
            List<String> tables = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT unnest(product.generation_tables())")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String t : tables) {
                long[] floor = fingerprint(c, t + "_g" + G);
                long[] rebuilt = fingerprint(c, t + "_g" + other);
                boolean equal = floor[0] == rebuilt[0] && floor[1] == rebuilt[1];
                all &= equal;
                Map<String, Object> table = new LinkedHashMap<>();
                table.put("rows", floor[0]);
                table.put("rebuildRows", rebuilt[0]);
                table.put("equal", equal);
                m.put(t, table);
            }
        }
        m.put("equal", all);
        return m;
    }

    /** @return the public view's row count and hash of generation {@code g} in {@code db} (any storage) */
    static long[] publicViewFingerprint(TestDatabase db, long g) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*), coalesce(sum(hashtextextended((to_jsonb(t) - 'generation_id')::text, 0)::numeric) "
                        + "% 9223372036854775807, 0)::bigint FROM product.public_item t WHERE generation_id = ?")) {
            ps.setLong(1, g);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private static long[] fingerprint(Connection c, String table) throws SQLException {
        // summed as numeric (a bigint sum could overflow), folded back into a bigint
        String sql = "SELECT count(*), coalesce(sum(hashtextextended((to_jsonb(t) - 'generation_id' - 'processed_at')"
                + "::text, 0)::numeric) % 9223372036854775807, 0)::bigint FROM product." + table + " t";
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /** Drops the floor generation's tables. */
    void drop() throws SQLException {
        try (Connection c = productDb.connect(); Statement st = c.createStatement()) {
            st.execute("SET search_path = product");
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT unnest(product.generation_tables())")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String t : tables) {
                st.execute("DROP TABLE IF EXISTS " + t + "_g" + G);
            }
        }
    }

    private String publicHalf(int half) {
        String winners = String.format(Locale.ROOT, WINNERS, G, "AND hashtext(ri.item_id) & 1 = " + half);
        return String.format(Locale.ROOT, PUBLIC_VIEW, G, winners);
    }

    private static String copyOut(String select, long epoch, long w) {
        return "COPY (" + String.format(Locale.ROOT, select, RebuildSeed.T, RebuildSeed.C, G, epoch, w).strip()
                + ") TO STDOUT WITH (FORMAT csv)";
    }

    private static String copyIn(String table, String columns) {
        return "COPY " + table + "_g" + G + " (" + columns + ") FROM STDIN WITH (FORMAT csv, FREEZE)";
    }

    private static void create(Connection c, String table) throws SQLException {
        exec(c, "SELECT create_generation_table(" + G + ", '" + table + "')");
    }

    private void indexes(Connection c, String... tables) throws Exception {
        timed("indexes", () -> inTx(c, () -> {
            for (String t : tables) {
                exec(c, "SELECT build_generation_index_parts(" + G + ", '" + t + "')");
            }
        }));
    }

    private void inTx(Connection c, Work work) throws Exception {
        try {
            try (PreparedStatement ps = c.prepareStatement(SESSION)) {
                ps.setString(1, memory);
                ps.executeQuery().close();
            }
            work.run();
            c.commit();
        } catch (Exception e) {
            c.rollback();
            throw e;
        }
    }

    private void timed(String key, Work work) throws Exception {
        long t0 = System.nanoTime();
        work.run();
        nanos.merge(key, System.nanoTime() - t0, Long::sum);
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Runs one connection's share; a failure fails the other's next wait. */
    private static void guarded(List<CompletableFuture<?>> waits, Work work) {
        try {
            work.run();
        } catch (Exception e) {
            waits.forEach(f -> f.completeExceptionally(e));
            throw new IllegalStateException(e);
        }
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }
}
