package com.acme.catalog.fault;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.fault.History.Op;
import com.acme.catalog.fault.History.Outcome;

import tools.jackson.databind.JsonNode;

/**
 * The history checker, run once the faults have stopped and the system has converged. It reads the stored truth
 * (the resolver's outbox and cursor, the product's inbox and serving generation) and the services' checksums, and
 * lists every violation:
 * <ul>
 *   <li>per (stream, epoch), committed positions are exactly 1..W, none seen twice, and the chain recomputed from
 *       d0 over the stored wire matches every row and that epoch's cursor row;</li>
 *   <li>every OK write is present exactly once, over all epochs, at the epoch and positions it was answered (a
 *       keyed retry answers the first result), no FAILED write is present, an UNKNOWN one at most once and all or
 *       nothing of it; nothing is present that no client wrote;</li>
 *   <li>an OK write missing entirely from the tail an asynchronous failover lost ({@link #lostTails}: its positions
 *       past what the promoted standby had, in that epoch) is listed in {@link #lostWrites}, not a violation; any
 *       position of one (stream, epoch) acknowledged or stored with two contents is a violation (a lost position
 *       reused);</li>
 *   <li>every write's outcome is known in the end, retried with its key ({@link #checkRetries});</li>
 *   <li>the product's serving generation is of the resolver's open epoch and processed exactly start+1..W, each with the resolver's chain digest, holds
 *       nothing, and its applied position and the consumer's durable progress are W;</li>
 *   <li>both product instances' projection checksums equal both resolver instances' state checksums under
 *       accepted-state-v1 and public-view-v1;</li>
 *   <li>nothing above a live lease pin or a consumer's durable progress was ever pruned (the pruning audit);</li>
 *   <li>every rebuild restart after a 410 was followed by a DONE rebuild of the stream (the rebuild audit);</li>
 *   <li>the harness's bootstrap streams hold whole chunks with a valid chain.</li>
 * </ul>
 * The outbox rows pruned during the run are read back from the pruning audit, so the per-stream checks see the
 * whole history 1..W.
 */
final class Checker {

    static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");

    private final Cluster cluster;
    private final List<String> violations = new ArrayList<>();
    final Map<String, Long> heads = new HashMap<>();
    /** per stream, the epoch of its open cursor */
    final Map<String, Long> openEpochs = new HashMap<>();
    /** per stream, every epoch's last position (the summary's {@code epochs}) */
    final Map<String, Map<Long, Long>> epochHeads = new java.util.TreeMap<>();
    /** Planted-bug switch for showing that the checker fails (docs/spk-05.md): -Dfault.plant=skip-chain. */
    private final String plant = System.getProperty("fault.plant", "");

    /** the tails asynchronous failovers lost: acknowledged writes in them are expected to be missing */
    final List<LostTail> lostTails = new ArrayList<>();
    /** the acknowledged writes the failovers lost, found by {@link #check} */
    final List<LostWrite> lostWrites = new ArrayList<>();

    Checker(Cluster cluster) {
        this.cluster = cluster;
    }

    /** What a failover lost of one stream: the positions of {@code epoch} after {@code survived}. */
    record LostTail(String catalog, long epoch, long survived) {
        boolean holds(Op op) {
            return op.outcome == Outcome.OK && op.catalog.equals(catalog) && op.epoch == epoch
                    && op.lastPosition > survived;
        }

        @Override
        public String toString() {
            return catalog + " epoch " + epoch + " after " + survived;
        }
    }

    /** An acknowledged write a failover lost. */
    record LostWrite(LostTail tail, Op op) {
        @Override
        public String toString() {
            return op.catalog + " e" + op.epoch + ":" + op.firstPosition + ".." + op.lastPosition + " " + op.kind
                    + " op " + op.id + " " + op.markers;
        }
    }

    /** @return every violation the checks found so far, in the order found */
    List<String> violations() {
        return List.copyOf(violations);
    }

    /** Whether every stream has reached its head in both products and in the consumer's durable progress. */
    boolean converged() {
        try {
            for (String c : cluster.catalogs) {
                long head = cursor(c).path("position").longValue();
                for (int i = 0; i < 2; i++) {
                    JsonNode p = cluster.get(cluster.productUrl(i) + "/v1/streams/" + Cluster.TENANT + "/" + c
                            + "/projection-checksum");
                    if (p.path("position").longValue() != head) {
                        return false;
                    }
                }
                if (durable(c) != head) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    void check(History history) throws Exception {
        Map<String, Map<String, List<At>>> markers = new HashMap<>();
        for (String c : cluster.catalogs) {
            markers.put(c, checkStream(c));
        }
        checkOps(history, markers);
        for (String c : cluster.catalogs) {
            checkProduct(c);
            checkChecksums(c);
        }
    }

    private JsonNode cursor(String c) throws Exception {
        return cluster.get(cluster.resolverUrl(0) + "/v1/streams/" + Cluster.TENANT + "/" + c + "/cursor");
    }

    private long durable(String c) throws Exception {
        try (Connection conn = cluster.connect("resolver"); PreparedStatement s = conn.prepareStatement("""
                SELECT coalesce(max(r.durable_position), -1) FROM resolver.retention_consumer r
                  JOIN resolver.stream_cursor k ON k.tenant = r.tenant AND k.catalog = r.catalog
                       AND k.epoch = r.epoch AND k.fenced_at IS NULL
                 WHERE r.consumer_id = 'product-1' AND r.tenant = ? AND r.catalog = ?
                """)) {
            s.setString(1, Cluster.TENANT);
            s.setString(2, c);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Where a change was found in the wire: its epoch and position. */
    record At(long epoch, long position) {
        @Override
        public String toString() {
            return "e" + epoch + ":" + position;
        }
    }

    /**
     * Per epoch of the stream (every cursor row, fenced or open): positions exactly 1..W of that epoch, no position
     * seen twice (with two contents or even one), the chain recomputed from d0 over the stored wire matches every row
     * and the epoch's cursor row. Returns marker → where it was found, over every epoch.
     */
    private Map<String, List<At>> checkStream(String c) throws Exception {
        Map<String, List<At>> found = new HashMap<>();
        Map<Long, Long> byEpoch = new java.util.TreeMap<>();
        try (Connection conn = cluster.connect("resolver")) {
            List<Object[]> cursors = new ArrayList<>();
            try (PreparedStatement s = conn.prepareStatement("""
                    SELECT epoch, position, chain_digest, fenced_at IS NULL FROM resolver.stream_cursor
                     WHERE tenant = ? AND catalog = ? ORDER BY epoch
                    """)) {
                s.setString(1, Cluster.TENANT);
                s.setString(2, c);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        cursors.add(new Object[] {rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getBoolean(4)});
                    }
                }
            }
            if (cursors.stream().noneMatch(k -> (Boolean) k[3])) {
                violations.add(c + ": no open cursor");
            }
            for (Object[] k : cursors) {
                long epoch = (Long) k[0];
                long cursorPosition = (Long) k[1];
                if ((Boolean) k[3]) {
                    heads.put(c, cursorPosition);
                    openEpochs.put(c, epoch);
                }
                byEpoch.put(epoch, cursorPosition);
                checkEpoch(conn, c, epoch, cursorPosition, (String) k[2], found);
            }
        }
        epochHeads.put(c, byEpoch);
        return found;
    }

    /** One (stream, epoch): gapless from 1, one content per position, the chain from d0, the cursor row at its end. */
    private void checkEpoch(Connection conn, String c, long epoch, long cursorPosition, String cursorDigest,
            Map<String, List<At>> found) throws Exception {
        String where = c + " epoch " + epoch;
        String digest = ChainDigest.ZERO;
        long expected = 1;
        long previous = 0;
        // the rows pruned during the run are in the pruning audit (Cluster.installPruneAudit), wire and all
        try (PreparedStatement s = conn.prepareStatement("""
                SELECT position, wire, chain_digest FROM resolver.outbox
                 WHERE tenant = ? AND catalog = ? AND epoch = ?
                UNION ALL
                SELECT position, wire, chain_digest FROM fault_audit.pruned
                 WHERE tenant = ? AND catalog = ? AND epoch = ?
                 ORDER BY position
                """)) {
            for (int k = 0; k < 2; k++) {
                s.setString(3 * k + 1, Cluster.TENANT);
                s.setString(3 * k + 2, c);
                s.setLong(3 * k + 3, epoch);
            }
            String previousWire = null;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long position = rs.getLong(1);
                    String wire = rs.getString(2);
                    if (position == previous) {
                        violations.add(where + ": position " + position + " seen twice, "
                                + (wire.equals(previousWire) ? "with one content" : "with two contents"));
                        continue;
                    }
                    if (position != expected) {
                        violations.add(where + ": position " + position + " where " + expected + " was expected");
                        expected = position;
                    }
                    digest = ChainDigest.next(digest, wire);
                    if (!plant.equals("skip-chain") && !digest.equals(rs.getString(3))) {
                        violations.add(where + ": chain digest at " + position + " does not recompute from wire");
                        digest = rs.getString(3);
                    }
                    JsonNode event = Cluster.JSON.readTree(wire);
                    JsonNode op = event.path("payload").path("attributes").path("op");
                    String marker = "release".equals(event.path("aggregateType").stringValue())
                            ? event.path("aggregateId").stringValue()
                            : op.isString() ? op.stringValue() : null;
                    if (marker != null) {
                        found.computeIfAbsent(marker, m -> new ArrayList<>()).add(new At(epoch, position));
                    }
                    previous = position;
                    previousWire = wire;
                    expected++;
                }
            }
        }
        if (expected - 1 != cursorPosition) {
            violations.add(where + ": outbox ends at " + (expected - 1) + ", cursor at " + cursorPosition);
        }
        if (!digest.equals(cursorDigest)) {
            violations.add(where + ": cursor digest differs from the last row's");
        }
    }

    /**
     * The writes against what is stored: {@code markers} is, per stream, every marker found in the stored wire and
     * where. Package-private for {@code CheckerLostWritesTest}.
     */
    void checkOps(History history, Map<String, Map<String, List<At>>> markers) {
        Map<String, Set<String>> written = new HashMap<>();
        checkOneContentPerPosition(history, markers);
        for (Op op : history.ops) {
            Map<String, List<At>> found = markers.get(op.catalog);
            written.computeIfAbsent(op.catalog, k -> new HashSet<>()).addAll(op.markers);
            int present = 0;
            for (String m : op.markers) {
                List<At> at = found.getOrDefault(m, List.of());
                if (at.size() > 1) {
                    // one key, one marker set: its content at two positions is a duplicate application
                    violations.add(op + ": marker " + m + " committed " + at.size() + " times at " + at);
                }
                present += at.isEmpty() ? 0 : 1;
            }
            if (op.outcome == null) {
                violations.add(op + ": no outcome recorded");
            } else if (op.outcome == Outcome.OK) {
                LostTail tail = present == 0 ? lostTails.stream().filter(t -> t.holds(op)).findFirst().orElse(null)
                        : null;
                if (tail != null && op.firstPosition > tail.survived()) {
                    lostWrites.add(new LostWrite(tail, op));
                } else if (present != op.markers.size()) {
                    violations.add(op + ": acknowledged, but " + (op.markers.size() - present) + " of "
                            + op.markers.size() + " changes are missing");
                } else {
                    for (int j = 0; j < op.markers.size(); j++) {
                        At at = found.get(op.markers.get(j)).get(0);
                        At answered = new At(op.epoch, op.firstPosition + j);
                        if (!at.equals(answered)) {
                            violations.add(op + ": change " + j + " at " + at + ", answered " + answered);
                        }
                    }
                    if (op.lastPosition != op.firstPosition + op.markers.size() - 1) {
                        violations.add(op + ": answered range does not match its " + op.markers.size() + " changes");
                    }
                }
            } else if (op.outcome == Outcome.FAILED && present > 0) {
                violations.add(op + ": failed, but " + present + " of its changes are committed");
            } else if (op.outcome == Outcome.UNKNOWN && present > 0 && present < op.markers.size()) {
                violations.add(op + ": half committed (" + present + " of " + op.markers.size() + ")");
            }
        }
        for (Map.Entry<String, Map<String, List<At>>> e : markers.entrySet()) {
            for (String m : e.getValue().keySet()) {
                if (!written.getOrDefault(e.getKey(), Set.of()).contains(m)) {
                    violations.add(e.getKey() + ": " + m + " committed, but no client wrote it");
                }
            }
        }
    }

    /**
     * One content per position of a (stream, epoch): no two acknowledged writes answered the same position, and no
     * position an acknowledged write was answered holds another write's change (a position a failover lost and the
     * resolver then gave to another write).
     */
    private void checkOneContentPerPosition(History history, Map<String, Map<String, List<At>>> markers) {
        Map<String, Map<At, String>> stored = new HashMap<>();
        markers.forEach((c, byMarker) -> byMarker.forEach((m, ats) -> ats.forEach(at ->
                stored.computeIfAbsent(c, k -> new HashMap<>()).merge(at, m, (a, b) -> a + "," + b))));
        Map<String, Map<At, String>> acknowledged = new HashMap<>();
        for (Op op : history.ops) {
            if (op.outcome != Outcome.OK) {
                continue;
            }
            for (int j = 0; j < op.markers.size(); j++) {
                At at = new At(op.epoch, op.firstPosition + j);
                String m = op.markers.get(j);
                String other = acknowledged.computeIfAbsent(op.catalog, k -> new HashMap<>()).putIfAbsent(at, m);
                if (other != null && !other.equals(m)) {
                    violations.add(op.catalog + " " + at + ": acknowledged with two contents, " + other + " and " + m);
                }
                String there = stored.getOrDefault(op.catalog, Map.of()).get(at);
                if (there != null && !there.equals(m)) {
                    violations.add(op.catalog + " " + at + ": acknowledged with " + m + " but stored with " + there
                            + " (two contents for one position: " + op + ")");
                }
            }
        }
    }

    private void checkProduct(String c) throws Exception {
        long head = heads.getOrDefault(c, -1L);
        Map<Long, String> resolverDigests = new HashMap<>();
        try (Connection conn = cluster.connect("resolver"); PreparedStatement s = conn.prepareStatement("""
                SELECT o.position, o.chain_digest
                  FROM (SELECT tenant, catalog, epoch, position, chain_digest FROM resolver.outbox
                        UNION ALL
                        SELECT tenant, catalog, epoch, position, chain_digest FROM fault_audit.pruned) o
                  JOIN resolver.stream_cursor k ON k.tenant = o.tenant AND k.catalog = o.catalog
                       AND k.epoch = o.epoch AND k.fenced_at IS NULL
                 WHERE o.tenant = ? AND o.catalog = ?
                """)) {
            s.setString(1, Cluster.TENANT);
            s.setString(2, c);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    resolverDigests.put(rs.getLong(1), rs.getString(2));
                }
            }
        }
        try (Connection conn = cluster.connect("product")) {
            long generation;
            long start;
            long applied;
            long servedEpoch;
            try (PreparedStatement s = conn.prepareStatement("""
                    SELECT g.generation_id, g.start_position, g.applied_position, g.epoch
                      FROM product.serving_generation sg
                      JOIN product.generation g ON g.generation_id = sg.generation_id
                     WHERE sg.tenant = ? AND sg.catalog = ?
                    """)) {
                s.setString(1, Cluster.TENANT);
                s.setString(2, c);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        violations.add(c + ": the product serves no generation");
                        return;
                    }
                    generation = rs.getLong(1);
                    start = rs.getLong(2);
                    applied = rs.getLong(3);
                    servedEpoch = rs.getLong(4);
                }
            }
            if (servedEpoch != openEpochs.getOrDefault(c, -1L)) {
                violations.add(c + ": the product serves epoch " + servedEpoch + ", the resolver's open epoch is "
                        + openEpochs.get(c));
            }
            if (applied != head) {
                violations.add(c + ": product applied position " + applied + ", resolver head " + head);
            }
            long expected = start + 1;
            try (PreparedStatement s = conn.prepareStatement(
                    "SELECT position, chain_digest FROM product.inbox WHERE generation_id = ? ORDER BY position")) {
                s.setLong(1, generation);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        long position = rs.getLong(1);
                        if (position != expected) {
                            violations.add(c + ": product inbox has " + position + " where " + expected
                                    + " was expected (skipped or applied twice)");
                            expected = position;
                        }
                        if (!rs.getString(2).equals(resolverDigests.get(position))) {
                            violations.add(c + ": product inbox digest at " + position + " is not the resolver's");
                        }
                        expected++;
                    }
                }
            }
            if (expected - 1 != head) {
                violations.add(c + ": product inbox ends at " + (expected - 1) + ", resolver head " + head);
            }
            try (PreparedStatement s = conn.prepareStatement(
                    "SELECT count(*) FROM product.held_event WHERE generation_id = ?")) {
                s.setLong(1, generation);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) != 0) {
                        violations.add(c + ": product still holds " + rs.getLong(1) + " events");
                    }
                }
            }
        }
        long durable = durable(c);
        if (durable != head) {
            violations.add(c + ": consumer durable progress " + durable + ", head " + head);
        }
    }

    /** why writes left unknown were not counted as violations (printed and in the summary) */
    final List<String> unknownExcused = new ArrayList<>();

    /**
     * Every logical write's outcome is known in the end: its retries with its {@code Idempotency-Key} got a definite
     * answer. A write still unknown is a violation, unless one planned fault lasted its whole retry time (from its
     * first attempt of unknown outcome to its retry deadline): then the retry time could not cover the fault window,
     * which is said in {@link #unknownExcused}. A 422 {@code IDEMPOTENCY_KEY_REUSED} is always a violation: the
     * writers send the same body with a key every time.
     */
    void checkRetries(History history, List<Faults.Window> windows, long retryMs) {
        List<Faults.Window> all;
        synchronized (windows) {
            all = List.copyOf(windows);
        }
        for (Op op : history.ops) {
            if (op.reason != null && op.reason.contains("IDEMPOTENCY_KEY_REUSED")) {
                violations.add(op + ": its own retry with the same body was refused as a reused key");
            }
            if (op.outcome != Outcome.UNKNOWN) {
                continue;
            }
            Faults.Window covering = all.stream().filter(w -> w.startNanos() <= op.firstAmbiguousNanos
                    && w.endNanos() >= op.retryDeadlineNanos).findFirst().orElse(null);
            if (covering != null) {
                String why = op + ": unknown after " + retryMs / 1000 + " s of retries, all inside " + covering.kind()
                        + " (" + (covering.endNanos() - covering.startNanos()) / 1_000_000 + " ms)";
                unknownExcused.add(why);
                System.out.println("[fault] retry time shorter than the fault window: " + why);
            } else {
                violations.add(op + ": outcome still unknown after " + retryMs / 1000 + " s of retries with its key");
            }
        }
    }

    /** What pruning, leases and rebuilds did during the run (for the summary); filled by {@link #checkRetention}. */
    final Map<String, Object> retention = new java.util.LinkedHashMap<>();
    final Map<String, Object> rebuilds = new java.util.LinkedHashMap<>();

    /**
     * Nothing above a live lease pin or a consumer's durable progress was ever pruned: every row the pruning audit
     * recorded (in the deleting transaction, with the lowest live pin and the lowest durable position of its stream
     * and epoch that transaction saw) is at or below both. Also counts prunes, pruned events and lease expiries.
     */
    void checkRetention() throws Exception {
        try (Connection conn = cluster.connect("resolver"); Statement s = conn.createStatement()) {
            try (ResultSet rs = s.executeQuery("""
                    SELECT count(*), count(DISTINCT txid),
                           count(*) FILTER (WHERE position > min_live_pin),
                           count(*) FILTER (WHERE position > min_durable),
                           count(*) FILTER (WHERE min_live_pin IS NOT NULL)
                      FROM fault_audit.pruned
                    """)) {
                rs.next();
                retention.put("eventsPruned", rs.getLong(1));
                retention.put("pruneTransactions", rs.getLong(2));
                retention.put("prunedAboveLivePin", rs.getLong(3));
                retention.put("prunedAboveDurableProgress", rs.getLong(4));
                retention.put("prunedWhileALeaseWasLive", rs.getLong(5));
            }
            try (ResultSet rs = s.executeQuery("""
                    SELECT tenant, catalog, epoch, position, min_live_pin, min_durable, consumers, txid
                      FROM fault_audit.pruned
                     WHERE position > min_live_pin OR position > min_durable
                     ORDER BY pruned_at, position LIMIT 20
                    """)) {
                while (rs.next()) {
                    violations.add(rs.getString(1) + "/" + rs.getString(2) + " epoch " + rs.getLong(3) + ": position "
                            + rs.getLong(4) + " pruned (transaction " + rs.getLong(8) + ") above "
                            + (rs.getObject(5) != null && rs.getLong(4) > rs.getLong(5) ? "the live lease pin "
                                    + rs.getLong(5) : "")
                            + (rs.getObject(6) != null && rs.getLong(4) > rs.getLong(6) ? " the consumers' durable "
                                    + "progress " + rs.getLong(6) + " (" + rs.getInt(7) + " consumers)" : ""));
                }
            }
            try (ResultSet rs = s.executeQuery("""
                    SELECT catalog, count(*), max(position) FROM fault_audit.pruned GROUP BY catalog ORDER BY catalog
                    """)) {
                Map<String, Object> by = new java.util.TreeMap<>();
                while (rs.next()) {
                    by.put(rs.getString(1), Map.of("events", rs.getLong(2), "through", rs.getLong(3)));
                }
                retention.put("prunedByStream", by);
            }
            try (ResultSet rs = s.executeQuery("""
                    SELECT split_part(owner, ' ', 1),
                           count(*) FILTER (WHERE expires_at < coalesce(released_at, clock_timestamp())), count(*)
                      FROM resolver.retention_lease GROUP BY 1 ORDER BY 1
                    """)) {
                Map<String, Object> expired = new java.util.TreeMap<>();
                long total = 0;
                while (rs.next()) {
                    expired.put(rs.getString(1), Map.of("expired", rs.getLong(2), "leases", rs.getLong(3)));
                    total += rs.getLong(2);
                }
                retention.put("leaseExpiries", total);
                retention.put("leasesByOwner", expired);
            }
        }
    }

    /**
     * Every rebuild restart caused by a 410 (or by an export the resolver aborted because its lease expired) was
     * followed by a DONE rebuild of the same stream: read from the product's rebuild rows through the harness's
     * audit trigger ({@link Ops#installRebuildAudit}), which records every phase and attempt change.
     */
    void checkRebuilds() throws Exception {
        try (Connection conn = cluster.connect("product"); Statement s = conn.createStatement()) {
            try (ResultSet rs = s.executeQuery("""
                    SELECT count(DISTINCT rebuild_id),
                           count(DISTINCT rebuild_id) FILTER (WHERE phase = 'DONE'),
                           count(DISTINCT rebuild_id) FILTER (WHERE phase = 'FAILED'),
                           count(*) FILTER (WHERE attempt > previous_attempt),
                           count(*) FILTER (WHERE attempt > previous_attempt AND error LIKE '%: 410 %'),
                           count(*) FILTER (WHERE attempt > previous_attempt AND error LIKE '%LEASE_EXPIRED%'),
                           count(*) FILTER (WHERE attempt > previous_attempt AND error LIKE '%was ABORTED%'),
                           count(*) FILTER (WHERE attempt > previous_attempt AND error LIKE '%worker stopped%')
                      FROM fault_audit.rebuild_step
                    """)) {
                rs.next();
                rebuilds.put("started", rs.getLong(1));
                rebuilds.put("done", rs.getLong(2));
                rebuilds.put("failed", rs.getLong(3));
                rebuilds.put("restarts", rs.getLong(4));
                rebuilds.put("restartsAfter410", rs.getLong(5));
                rebuilds.put("restartsAfterLeaseExpired", rs.getLong(6));
                rebuilds.put("restartsAfterExportAborted", rs.getLong(7));
                rebuilds.put("resumedAfterTheWorkerStopped", rs.getLong(8));
            }
            try (ResultSet rs = s.executeQuery("""
                    SELECT r.rebuild_id, r.catalog, r.at, r.error FROM fault_audit.rebuild_step r
                     WHERE r.attempt > r.previous_attempt AND (r.error LIKE '%: 410 %' OR r.error LIKE '%was ABORTED%')
                       AND NOT EXISTS (SELECT 1 FROM fault_audit.rebuild_step d
                                        WHERE d.tenant = r.tenant AND d.catalog = r.catalog AND d.phase = 'DONE'
                                          AND d.at > r.at)
                     ORDER BY r.at
                    """)) {
                while (rs.next()) {
                    violations.add("rebuild " + rs.getString(1) + " of " + rs.getString(2) + " restarted after a 410 at "
                            + rs.getString(3) + " (" + rs.getString(4) + "), but no rebuild of the stream was DONE after it");
                }
            }
            try (ResultSet rs = s.executeQuery("""
                    SELECT left(coalesce(error, 'null'), 160), count(*) FROM fault_audit.rebuild_step
                     WHERE phase = 'FAILED' GROUP BY 1 ORDER BY count(*) DESC LIMIT 10
                    """)) {
                // grouped by the shortened message: messages differing only after it (ids, times) count together
                // instead of overwriting each other's count under one key
                Map<String, Long> failed = new java.util.LinkedHashMap<>();
                while (rs.next()) {
                    failed.put(rs.getString(1), rs.getLong(2));
                }
                rebuilds.put("failedBecause", failed);
            }
        }
    }

    /** The harness's bootstrap streams: positions 1..W with a valid chain, W a whole number of chunks or all. */
    void checkBootstrapStreams(Map<String, Integer> streams, int events) throws Exception {
        for (Map.Entry<String, Integer> e : streams.entrySet()) {
            checkStream(e.getKey());
            long w = heads.getOrDefault(e.getKey(), -1L);
            if (w != events && w % e.getValue() != 0) {
                violations.add(e.getKey() + ": a bootstrap import in chunks of " + e.getValue() + " left " + w
                        + " events, not whole chunks");
            }
        }
    }

    private void checkChecksums(String c) throws Exception {
        for (String profile : PROFILES) {
            List<JsonNode> answers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                answers.add(cluster.get(cluster.resolverUrl(i) + "/v1/streams/" + Cluster.TENANT + "/" + c
                        + "/state-checksum?profile=" + profile));
                answers.add(cluster.get(cluster.productUrl(i) + "/v1/streams/" + Cluster.TENANT + "/" + c
                        + "/projection-checksum?profile=" + profile));
            }
            JsonNode first = answers.get(0);
            for (JsonNode a : answers) {
                if (!a.path("position").equals(first.path("position")) || !a.path("tables").equals(first.path("tables"))
                        || !profile.equals(a.path("profile").stringValue())) {
                    violations.add(c + " " + profile + ": checksums differ: " + answers);
                    break;
                }
            }
            if (profile.equals("public-view-v1") && first.path("tables").isEmpty()) {
                violations.add(c + " " + profile + ": empty tables member: " + first);
            }
        }
    }
}
