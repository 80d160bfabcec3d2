package com.acme.catalog.fault;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 *   <li>per stream, committed positions are exactly 1..W and the chain recomputed from the stored wire matches
 *       every row and the cursor;</li>
 *   <li>every OK write is present exactly once at the positions it was answered, no FAILED write is present, an
 *       UNKNOWN one at most once and all or nothing of it; nothing is present that no client wrote;</li>
 *   <li>the product's serving generation processed exactly start+1..W, each with the resolver's chain digest, holds
 *       nothing, and its applied position and the consumer's durable progress are W;</li>
 *   <li>both product instances' projection checksums equal both resolver instances' state checksums under
 *       accepted-state-v1 and public-view-v1.</li>
 * </ul>
 */
final class Checker {

    static final List<String> PROFILES = List.of("accepted-state-v1", "public-view-v1");

    private final Cluster cluster;
    final List<String> violations = new ArrayList<>();
    final Map<String, Long> heads = new HashMap<>();
    /** Planted-bug switch for showing that the checker fails (docs/spk-05.md): -Dfault.plant=skip-chain. */
    private final String plant = System.getProperty("fault.plant", "");

    Checker(Cluster cluster) {
        this.cluster = cluster;
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
        Map<String, Map<String, List<Long>>> markers = new HashMap<>();
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
        try (Connection conn = cluster.pg.connect("resolver"); PreparedStatement s = conn.prepareStatement("""
                SELECT coalesce(max(durable_position), -1) FROM resolver.retention_consumer
                 WHERE consumer_id = 'product-1' AND tenant = ? AND catalog = ?
                """)) {
            s.setString(1, Cluster.TENANT);
            s.setString(2, c);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Positions 1..W, the chain, the cursor; returns marker → positions found in the wire. */
    private Map<String, List<Long>> checkStream(String c) throws Exception {
        Map<String, List<Long>> found = new HashMap<>();
        try (Connection conn = cluster.pg.connect("resolver")) {
            long epoch;
            long cursorPosition;
            String cursorDigest;
            try (PreparedStatement s = conn.prepareStatement("""
                    SELECT epoch, position, chain_digest FROM resolver.stream_cursor
                     WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
                    """)) {
                s.setString(1, Cluster.TENANT);
                s.setString(2, c);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        violations.add(c + ": no open cursor");
                        return found;
                    }
                    epoch = rs.getLong(1);
                    cursorPosition = rs.getLong(2);
                    cursorDigest = rs.getString(3);
                }
            }
            heads.put(c, cursorPosition);
            String digest = ChainDigest.ZERO;
            long expected = 1;
            try (PreparedStatement s = conn.prepareStatement("""
                    SELECT position, wire, chain_digest FROM resolver.outbox
                     WHERE tenant = ? AND catalog = ? AND epoch = ? ORDER BY position
                    """)) {
                s.setString(1, Cluster.TENANT);
                s.setString(2, c);
                s.setLong(3, epoch);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        long position = rs.getLong(1);
                        String wire = rs.getString(2);
                        if (position != expected) {
                            violations.add(c + ": position " + position + " where " + expected + " was expected");
                            expected = position;
                        }
                        digest = ChainDigest.next(digest, wire);
                        if (!plant.equals("skip-chain") && !digest.equals(rs.getString(3))) {
                            violations.add(c + ": chain digest at " + position + " does not recompute from wire");
                            digest = rs.getString(3);
                        }
                        JsonNode event = Cluster.JSON.readTree(wire);
                        String marker = "release".equals(event.path("aggregateType").stringValue())
                                ? event.path("aggregateId").stringValue()
                                : event.path("payload").path("attributes").path("op").stringValue();
                        if (marker != null) {
                            found.computeIfAbsent(marker, k -> new ArrayList<>()).add(position);
                        }
                        expected++;
                    }
                }
            }
            if (expected - 1 != cursorPosition) {
                violations.add(c + ": outbox ends at " + (expected - 1) + ", cursor at " + cursorPosition);
            }
            if (!digest.equals(cursorDigest)) {
                violations.add(c + ": cursor digest differs from the last row's");
            }
        }
        return found;
    }

    private void checkOps(History history, Map<String, Map<String, List<Long>>> markers) {
        Map<String, Set<String>> written = new HashMap<>();
        for (Op op : history.ops) {
            Map<String, List<Long>> found = markers.get(op.catalog);
            written.computeIfAbsent(op.catalog, k -> new HashSet<>()).addAll(op.markers);
            int present = 0;
            for (String m : op.markers) {
                List<Long> at = found.getOrDefault(m, List.of());
                if (at.size() > 1) {
                    violations.add(op + ": marker " + m + " committed " + at.size() + " times at " + at);
                }
                present += at.isEmpty() ? 0 : 1;
            }
            if (op.outcome == null) {
                violations.add(op + ": no outcome recorded");
            } else if (op.outcome == Outcome.OK) {
                if (present != op.markers.size()) {
                    violations.add(op + ": acknowledged, but " + (op.markers.size() - present) + " of "
                            + op.markers.size() + " changes are missing");
                } else {
                    for (int j = 0; j < op.markers.size(); j++) {
                        long at = found.get(op.markers.get(j)).get(0);
                        if (at != op.firstPosition + j) {
                            violations.add(op + ": change " + j + " at " + at + ", answered "
                                    + (op.firstPosition + j));
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
        for (Map.Entry<String, Map<String, List<Long>>> e : markers.entrySet()) {
            for (String m : e.getValue().keySet()) {
                if (!written.getOrDefault(e.getKey(), Set.of()).contains(m)) {
                    violations.add(e.getKey() + ": " + m + " committed, but no client wrote it");
                }
            }
        }
    }

    private void checkProduct(String c) throws Exception {
        long head = heads.getOrDefault(c, -1L);
        Map<Long, String> resolverDigests = new HashMap<>();
        try (Connection conn = cluster.pg.connect("resolver"); PreparedStatement s = conn.prepareStatement("""
                SELECT o.position, o.chain_digest FROM resolver.outbox o
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
        try (Connection conn = cluster.pg.connect("product")) {
            long generation;
            long start;
            long applied;
            try (PreparedStatement s = conn.prepareStatement("""
                    SELECT g.generation_id, g.start_position, g.applied_position FROM product.serving_generation sg
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
                }
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
