package com.acme.catalog.resolver.stream;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.AcceptedStateRepository.CurrentRevision;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;
import com.acme.catalog.resolver.stream.StateAccess.RevisionRow;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Multi-row forms of the write path's statements: one round trip per table for a whole physical transaction.
 * Rows travel as parallel arrays through {@code unnest}. Callers hold the stream's cursor lock, and pass at most
 * one current row per aggregate (an upsert may not touch a row twice in one statement).
 */
@Repository
class BatchWriteRepository {

    private static final String SQL_CURRENT_ITEMS = """
            SELECT item_id, revision, deleted FROM item
             WHERE tenant = ? AND catalog = ? AND item_id = ANY (?::text[])
            """;
    private static final String SQL_CURRENT_MAPPINGS = """
            SELECT mapping_id, revision, false FROM mapping
             WHERE tenant = ? AND catalog = ? AND mapping_id = ANY (?::text[])
            """;
    private static final String SQL_CURRENT_POLICIES = """
            SELECT policy_id, revision, false FROM policy
             WHERE tenant = ? AND catalog = ? AND policy_id = ANY (?::text[])
            """;
    private static final String SQL_CURRENT_RELEASES = """
            SELECT release_id, revision, false FROM release
             WHERE tenant = ? AND catalog = ? AND release_id = ANY (?::text[])
            """;
    private static final String SQL_LIVE_ITEM_REVISIONS = """
            SELECT r.aggregate_id, r.revision
              FROM accepted_revision r
              JOIN unnest(?::text[], ?::int[]) AS q(item_id, revision)
                ON r.aggregate_id = q.item_id AND r.revision = q.revision
             WHERE r.tenant = ? AND r.catalog = ? AND r.aggregate_type = 'item' AND NOT r.deleted
            """;
    private static final String SQL_UPSERT_ITEMS = """
            INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
            SELECT ?, ?, u.item_id, u.revision, u.attributes::jsonb, u.deleted, u.epoch, u.position
              FROM unnest(?::text[], ?::int[], ?::text[], ?::boolean[], ?::bigint[], ?::bigint[])
                   AS u(item_id, revision, attributes, deleted, epoch, position)
            ON CONFLICT (tenant, catalog, item_id) DO UPDATE
               SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_MAPPINGS = """
            INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
            SELECT ?, ?, u.mapping_id, u.revision, u.source, u.target, u.epoch, u.position
              FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])
                   AS u(mapping_id, revision, source, target, epoch, position)
            ON CONFLICT (tenant, catalog, mapping_id) DO UPDATE
               SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_POLICIES = """
            INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
            SELECT ?, ?, u.policy_id, u.revision, u.rules::jsonb, u.epoch, u.position
              FROM unnest(?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[])
                   AS u(policy_id, revision, rules, epoch, position)
            ON CONFLICT (tenant, catalog, policy_id) DO UPDATE
               SET revision = excluded.revision, rules = excluded.rules,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_RELEASES = """
            INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
            SELECT ?, ?, u.release_id, u.revision, u.visibility, u.items::jsonb, u.epoch, u.position
              FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])
                   AS u(release_id, revision, visibility, items, epoch, position)
            ON CONFLICT (tenant, catalog, release_id) DO UPDATE
               SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_INSERT_REVISIONS = """
            INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content, deleted,
                                           epoch, position, event_id)
            SELECT ?, ?, u.aggregate_type, u.aggregate_id, u.revision, u.content::jsonb, u.deleted, u.epoch,
                   u.position, u.event_id
              FROM unnest(?::text[], ?::text[], ?::int[], ?::text[], ?::boolean[], ?::bigint[], ?::bigint[],
                          ?::uuid[])
                   AS u(aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id)
            """;
    private static final String SQL_INSERT_OUTBOX = """
            INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id, transaction_ordinal,
                                transaction_count, event_type, aggregate_type, aggregate_id, revision, wire,
                                chain_digest, occurred_at)
            SELECT ?, ?, u.epoch, u.position, u.event_id, u.transaction_id, u.ordinal, u.count, u.event_type,
                   u.aggregate_type, u.aggregate_id, u.revision, u.wire, u.chain_digest, u.occurred_at
              FROM unnest(?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[], ?::int[], ?::int[], ?::text[], ?::text[],
                          ?::text[], ?::int[], ?::text[], ?::text[], ?::timestamptz[])
                   AS u(epoch, position, event_id, transaction_id, ordinal, count, event_type, aggregate_type,
                        aggregate_id, revision, wire, chain_digest, occurred_at)
            """;

    private final JdbcClient jdbc;

    BatchWriteRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Current revisions of the given aggregates of one type; absent ids never existed. */
    Map<String, CurrentRevision> currentRevisions(StreamId s, String aggregateType, Collection<String> ids) {
        String sql = switch (aggregateType) {
            case "item" -> SQL_CURRENT_ITEMS;
            case "mapping" -> SQL_CURRENT_MAPPINGS;
            case "policy" -> SQL_CURRENT_POLICIES;
            case "release" -> SQL_CURRENT_RELEASES;
            default -> throw new IllegalArgumentException("unknown aggregate type " + aggregateType);
        };
        Map<String, CurrentRevision> out = new HashMap<>();
        jdbc.sql(sql).params(s.tenant(), s.catalog(), ids.toArray(String[]::new))
                .query(rs -> {
                    out.put(rs.getString(1), new CurrentRevision(rs.getInt(2), rs.getBoolean(3)));
                });
        return out;
    }

    /** Which of the given (item, revision) pairs exist and are not deletions, as {@link #key} strings. */
    Set<String> liveItemRevisions(StreamId s, List<Change.ItemRef> refs) {
        String[] ids = new String[refs.size()];
        int[] revisions = new int[refs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = refs.get(i).itemId();
            revisions[i] = refs.get(i).revision();
        }
        Set<String> live = new HashSet<>();
        jdbc.sql(SQL_LIVE_ITEM_REVISIONS).params(ids, revisions, s.tenant(), s.catalog())
                .query(rs -> {
                    live.add(key(rs.getString(1), rs.getInt(2)));
                });
        return live;
    }

    static String key(String itemId, int revision) {
        return itemId + '\u0000' + revision;
    }

    void upsertItems(StreamId s, List<ItemRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] attributes = new String[n];
        boolean[] deleted = new boolean[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            ItemRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            attributes[i] = r.attributesJson();
            deleted[i] = r.deleted();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        jdbc.sql(SQL_UPSERT_ITEMS)
                .params(s.tenant(), s.catalog(), ids, revisions, attributes, deleted, epochs, positions).update();
    }

    void upsertMappings(StreamId s, List<MappingRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] sources = new String[n];
        String[] targets = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            MappingRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            sources[i] = r.source();
            targets[i] = r.target();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        jdbc.sql(SQL_UPSERT_MAPPINGS)
                .params(s.tenant(), s.catalog(), ids, revisions, sources, targets, epochs, positions).update();
    }

    void upsertPolicies(StreamId s, List<PolicyRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] rules = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            PolicyRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            rules[i] = r.rulesJson();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        jdbc.sql(SQL_UPSERT_POLICIES).params(s.tenant(), s.catalog(), ids, revisions, rules, epochs, positions)
                .update();
    }

    void upsertReleases(StreamId s, List<ReleaseRow> rows) {
        int n = rows.size();
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] visibilities = new String[n];
        String[] items = new String[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            ReleaseRow r = rows.get(i);
            ids[i] = r.id();
            revisions[i] = r.revision();
            visibilities[i] = r.visibility();
            items[i] = r.itemsJson();
            epochs[i] = r.epoch();
            positions[i] = r.position();
        }
        jdbc.sql(SQL_UPSERT_RELEASES)
                .params(s.tenant(), s.catalog(), ids, revisions, visibilities, items, epochs, positions).update();
    }

    void insertRevisions(StreamId s, List<RevisionRow> rows) {
        int n = rows.size();
        String[] types = new String[n];
        String[] ids = new String[n];
        int[] revisions = new int[n];
        String[] contents = new String[n];
        boolean[] deleted = new boolean[n];
        long[] epochs = new long[n];
        long[] positions = new long[n];
        String[] eventIds = new String[n];
        for (int i = 0; i < n; i++) {
            RevisionRow r = rows.get(i);
            types[i] = r.aggregateType();
            ids[i] = r.aggregateId();
            revisions[i] = r.revision();
            contents[i] = r.contentJson();
            deleted[i] = r.deleted();
            epochs[i] = r.epoch();
            positions[i] = r.position();
            eventIds[i] = r.eventId().toString();
        }
        jdbc.sql(SQL_INSERT_REVISIONS).params(s.tenant(), s.catalog(), types, ids, revisions, contents, deleted,
                epochs, positions, eventIds).update();
    }

    void insertOutbox(StreamId s, List<OutboxRow> rows) {
        int n = rows.size();
        long[] epochs = new long[n];
        long[] positions = new long[n];
        String[] eventIds = new String[n];
        String[] transactionIds = new String[n];
        int[] ordinals = new int[n];
        int[] counts = new int[n];
        String[] types = new String[n];
        String[] aggregateTypes = new String[n];
        String[] aggregateIds = new String[n];
        Integer[] revisions = new Integer[n];
        String[] wires = new String[n];
        String[] digests = new String[n];
        String[] occurredAt = new String[n];
        for (int i = 0; i < n; i++) {
            OutboxRow r = rows.get(i);
            epochs[i] = r.epoch();
            positions[i] = r.position();
            eventIds[i] = r.eventId().toString();
            transactionIds[i] = r.transactionId().toString();
            ordinals[i] = r.transactionOrdinal();
            counts[i] = r.transactionCount();
            types[i] = r.type();
            aggregateTypes[i] = r.aggregateType();
            aggregateIds[i] = r.aggregateId();
            revisions[i] = r.revision();
            wires[i] = r.wire();
            digests[i] = r.chainDigest();
            occurredAt[i] = r.occurredAt().toString();
        }
        jdbc.sql(SQL_INSERT_OUTBOX).params(s.tenant(), s.catalog(), epochs, positions, eventIds, transactionIds,
                ordinals, counts, types, aggregateTypes, aggregateIds, revisions, wires, digests, occurredAt).update();
    }

    record ItemRow(String id, int revision, String attributesJson, boolean deleted, long epoch, long position) {
    }

    record MappingRow(String id, int revision, String source, String target, long epoch, long position) {
    }

    record PolicyRow(String id, int revision, String rulesJson, long epoch, long position) {
    }

    record ReleaseRow(String id, int revision, String visibility, String itemsJson, long epoch, long position) {
    }
}
