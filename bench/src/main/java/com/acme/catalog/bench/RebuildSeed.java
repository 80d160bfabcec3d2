package com.acme.catalog.bench;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.testsupport.TestDatabase;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * The rebuild scenario's data, the same in every resolver database of a run: one history of single-event
 * transactions, built as the resolver's write path builds them (wire, chained digest, accepted revision, current
 * row, cursor), written with SQL. Positions 1..N: item upserts {@code sku-1..sku-N} (revision 1); then 1000 mapping
 * upserts, 10 policy upserts and N/1000 PUBLIC releases naming 500 items each (revision 1 of each). Every database
 * gets the current rows, every revision in {@code accepted_revision} and the cursor at the head H0 with its real
 * chain digest; a <em>pruned</em> database (the rebuild's) has no outbox rows and records the digest at H0 as the
 * pruner does, an <em>unpruned</em> one (the full replay's) keeps every event in its outbox. The history is generated
 * once and streamed into every database at the same time, so event ids and digests are identical.
 *
 * <p>The tail: T item upserts after H0 (revision 1 → 2 of {@code sku-1..sku-T}, each depending on revision 1),
 * prepared once ({@link #prepareTail}) and written into each database in one SQL transaction ({@link #writeTail}).
 */
final class RebuildSeed {

    static final String T = "bench";
    static final String C = "big";
    static final int MAPPINGS = 1000;
    static final int POLICIES = 10;
    static final int RELEASE_SIZE = 500;

    /** A resolver database to seed; {@code pruned}: no outbox rows, the stream pruned through its head. */
    record Target(TestDatabase db, boolean pruned) {
    }

    /** The seeded stream's head H0 and the chain digest there. */
    record Head(long position, String digest) {
    }

    /** The tail's rows as CSV (built before the rebuild starts), the digest at its end, its first position. */
    record Tail(String csv, String digest, String occurred, long after, int events) {
    }

    private RebuildSeed() {
    }

    /** Seeds every target with the same history of {@code items} items (see the class comment). */
    static Head seed(int items, List<Target> targets) throws Exception {
        List<Connection> connections = new ArrayList<>();
        try {
            List<CopyIn> copies = new ArrayList<>();
            for (Target t : targets) {
                Connection c = t.db().connect();
                connections.add(c);
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("SET search_path = resolver");
                    st.execute("CREATE UNLOGGED TABLE bench_history (position bigint, event_id uuid, "
                            + "transaction_id uuid, event_type text, aggregate_type text, aggregate_id text, "
                            + "payload jsonb, wire text, chain_digest text)");
                }
                copies.add(c.unwrap(PGConnection.class).getCopyAPI()
                        .copyIn("COPY bench_history FROM STDIN WITH (FORMAT csv)"));
            }
            String occurred = Instant.now().toString();
            String digest = ChainDigest.ZERO;
            long position = 0;
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 17);
            int releases = items / 1000;
            long total = (long) items + MAPPINGS + POLICIES + releases;
            while (position < total) {
                position++;
                String type;
                String aggregate;
                String id;
                String payload;
                if (position <= items) {
                    long g = position;
                    type = "ItemUpserted";
                    aggregate = "item";
                    id = "sku-" + g;
                    payload = "{\"attributes\":{\"name\":\"Trail runner " + g + "\",\"price\":" + (g % 1000)
                            + ",\"colour\":\"blue, \\\"navy\\\"\",\"tags\":[\"run\",\"trail\"]}}";
                } else if (position <= (long) items + MAPPINGS) {
                    long g = position - items;
                    type = "MappingUpserted";
                    aggregate = "mapping";
                    id = "map-" + g;
                    payload = "{\"source\":\"sku-" + g + "\",\"target\":\"sku-" + (g + 1) + "\"}";
                } else if (position <= (long) items + MAPPINGS + POLICIES) {
                    long g = position - items - MAPPINGS;
                    type = "PolicyUpserted";
                    aggregate = "policy";
                    id = "pol-" + g;
                    payload = "{\"rules\":{\"maxPrice\":" + (g * 100) + "}}";
                } else {
                    long r = position - items - MAPPINGS - POLICIES - 1;
                    type = "ReleasePublished";
                    aggregate = "release";
                    id = "rel-" + r;
                    StringBuilder p = new StringBuilder(RELEASE_SIZE * 40).append("{\"visibility\":\"PUBLIC\",\"items\":[");
                    for (int i = 1; i <= RELEASE_SIZE; i++) {
                        p.append(i == 1 ? "" : ",").append("{\"itemId\":\"sku-").append(r * 1000 + i)
                                .append("\",\"revision\":1}");
                    }
                    payload = p.append("]}").toString();
                }
                UUID eventId = UuidV7.next();
                UUID txId = UuidV7.next();
                String wire = wire(position, eventId, txId, type, aggregate, id, 1, "[]", occurred, payload);
                digest = ChainDigest.next(digest, wire);
                String line = position + "," + eventId + "," + txId + "," + type + "," + aggregate + "," + id + ","
                        + quote(payload) + "," + quote(wire) + "," + digest + "\n";
                buffer.writeBytes(line.getBytes(StandardCharsets.UTF_8));
                if (buffer.size() >= 1 << 16) {
                    flush(copies, buffer);
                }
            }
            flush(copies, buffer);
            for (CopyIn in : copies) {
                in.endCopy();
            }
            for (int i = 0; i < targets.size(); i++) {
                fill(connections.get(i), targets.get(i).pruned(), position, digest, occurred);
            }
            for (Connection c : connections) {
                c.commit();
                c.setAutoCommit(true);
                try (Statement st = c.createStatement()) {
                    st.execute("SET search_path = resolver");
                    for (String table : List.of("item", "release", "mapping", "policy", "accepted_revision",
                            "outbox")) {
                        st.execute("VACUUM ANALYZE " + table);
                    }
                }
            }
            return new Head(position, digest);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static void flush(List<CopyIn> copies, ByteArrayOutputStream buffer) throws SQLException {
        byte[] bytes = buffer.toByteArray();
        for (CopyIn in : copies) {
            in.writeToCopy(bytes, 0, bytes.length);
        }
        buffer.reset();
    }

    /** The resolver's rows of the staged history, in the connection's transaction. */
    private static void fill(Connection c, boolean pruned, long head, String digest, String occurred)
            throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("""
                    INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content,
                                                   deleted, epoch, position, event_id)
                    SELECT '%1$s', '%2$s', aggregate_type, aggregate_id, 1, payload, false, 1, position, event_id
                      FROM bench_history ORDER BY position
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                    SELECT '%1$s', '%2$s', aggregate_id, 1, payload -> 'attributes', false, 1, position
                      FROM bench_history WHERE aggregate_type = 'item' ORDER BY position
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
                    SELECT '%1$s', '%2$s', aggregate_id, 1, payload ->> 'source', payload ->> 'target', 1, position
                      FROM bench_history WHERE aggregate_type = 'mapping'
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
                    SELECT '%1$s', '%2$s', aggregate_id, 1, payload -> 'rules', 1, position
                      FROM bench_history WHERE aggregate_type = 'policy'
                    """.formatted(T, C));
            st.execute("""
                    INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
                    SELECT '%1$s', '%2$s', aggregate_id, 1, payload ->> 'visibility', payload -> 'items', 1, position
                      FROM bench_history WHERE aggregate_type = 'release'
                    """.formatted(T, C));
            if (!pruned) {
                st.execute("""
                        INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id,
                                            transaction_ordinal, transaction_count, event_type, aggregate_type,
                                            aggregate_id, revision, wire, chain_digest, occurred_at)
                        SELECT '%1$s', '%2$s', 1, position, event_id, transaction_id, 0, 1, event_type,
                               aggregate_type, aggregate_id, 1, wire, chain_digest, '%3$s'::timestamptz
                          FROM bench_history ORDER BY position
                        """.formatted(T, C, occurred));
            }
            st.execute("DROP TABLE bench_history");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO stream_cursor (tenant, catalog, epoch, position, "
                + "chain_digest) VALUES (?, ?, 1, ?, ?)")) {
            ps.setString(1, T);
            ps.setString(2, C);
            ps.setLong(3, head);
            ps.setString(4, digest);
            ps.executeUpdate();
        }
        if (pruned) {
            // events 1..H0 are gone (pruned); the pruner keeps the digest at the last pruned position
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO stream_retention (tenant, catalog, epoch, "
                    + "pruned_through, pruned_at) VALUES (?, ?, 1, ?, now())")) {
                ps.setString(1, T);
                ps.setString(2, C);
                ps.setLong(3, head);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_pruned_digest (tenant, catalog, epoch, "
                    + "position, chain_digest) VALUES (?, ?, 1, ?, ?)")) {
                ps.setString(1, T);
                ps.setString(2, C);
                ps.setLong(3, head);
                ps.setString(4, digest);
                ps.executeUpdate();
            }
        }
    }

    /** An event's wire, as the resolver's write path writes it (the field order the chain digest covers). */
    private static String wire(long position, UUID eventId, UUID txId, String type, String aggregate, String id,
            int revision, String dependsOn, String occurred, String payload) {
        return "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\",\"epoch\":1,\"position\":" + position
                + ",\"eventId\":\"" + eventId + "\",\"transactionId\":\"" + txId
                + "\",\"transactionOrdinal\":0,\"transactionCount\":1,\"type\":\"" + type + "\",\"aggregateType\":\""
                + aggregate + "\",\"aggregateId\":\"" + id + "\",\"revision\":" + revision + ",\"dependsOn\":"
                + dependsOn + ",\"occurredAt\":\"" + occurred + "\",\"payload\":" + payload + "}";
    }

    /**
     * T item upserts after the head (see {@code ChangeApplier} and {@code EventAppender}): one transaction each,
     * revision 1 → 2 depending on revision 1, chained digests from the head's.
     */
    static Tail prepareTail(Head head, int tail) {
        StringBuilder csv = new StringBuilder(tail * 600);
        String digest = head.digest();
        String occurred = Instant.now().toString();
        for (int k = 1; k <= tail; k++) {
            long position = head.position() + k;
            UUID eventId = UuidV7.next();
            UUID txId = UuidV7.next();
            String id = "sku-" + k;
            String attributes = "{\"name\":\"Trail runner " + k + " v2\",\"price\":" + (k % 1000 + 1)
                    + ",\"tags\":[\"run\",\"trail\",\"tail\"]}";
            String wire = wire(position, eventId, txId, "ItemUpserted", "item", id, 2,
                    "[{\"aggregateType\":\"item\",\"aggregateId\":\"" + id + "\",\"revision\":1}]", occurred,
                    "{\"attributes\":" + attributes + "}");
            digest = ChainDigest.next(digest, wire);
            csv.append(position).append(',').append(eventId).append(',').append(txId).append(',').append(id)
                    .append(',').append(quote(attributes)).append(',').append(quote(wire)).append(',').append(digest)
                    .append('\n');
        }
        return new Tail(csv.toString(), digest, occurred, head.position(), tail);
    }

    /** Commits the tail's events in one SQL transaction: outbox, accepted revisions, current rows, cursor. */
    static void writeTail(TestDatabase db, Tail t) throws Exception {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET search_path = resolver");
                st.execute("SELECT position FROM stream_cursor WHERE tenant = '" + T + "' AND catalog = '" + C
                        + "' FOR UPDATE");
                st.execute("CREATE TEMP TABLE tail (position bigint, event_id uuid, transaction_id uuid, "
                        + "item_id text, attributes jsonb, wire text, chain_digest text) ON COMMIT DROP");
                c.unwrap(PGConnection.class).getCopyAPI()
                        .copyIn("COPY tail FROM STDIN WITH (FORMAT csv)", new java.io.StringReader(t.csv()));
                st.execute("ANALYZE tail");
                st.execute("""
                        INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id,
                                            transaction_ordinal, transaction_count, event_type, aggregate_type,
                                            aggregate_id, revision, wire, chain_digest, occurred_at)
                        SELECT '%1$s', '%2$s', 1, position, event_id, transaction_id, 0, 1, 'ItemUpserted', 'item',
                               item_id, 2, wire, chain_digest, '%3$s'::timestamptz FROM tail ORDER BY position
                        """.formatted(T, C, t.occurred()));
                st.execute("""
                        INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision,
                                                       content, deleted, epoch, position, event_id)
                        SELECT '%1$s', '%2$s', 'item', item_id, 2, jsonb_build_object('attributes', attributes),
                               false, 1, position, event_id FROM tail
                        """.formatted(T, C));
                st.execute("""
                        UPDATE item i SET revision = 2, attributes = t.attributes, position = t.position,
                                          updated_at = now()
                          FROM tail t WHERE i.tenant = '%1$s' AND i.catalog = '%2$s' AND i.item_id = t.item_id
                        """.formatted(T, C));
                try (PreparedStatement ps = c.prepareStatement("UPDATE stream_cursor SET position = ?, "
                        + "chain_digest = ?, updated_at = now() WHERE tenant = ? AND catalog = ?")) {
                    ps.setLong(1, t.after() + t.events());
                    ps.setString(2, t.digest());
                    ps.setString(3, T);
                    ps.setString(4, C);
                    ps.executeUpdate();
                }
            }
            c.commit();
        }
    }

    static String quote(String s) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
