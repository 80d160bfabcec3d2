package com.acme.catalog.product.projection;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.product.projection.ProjectionBatch.Current;
import com.acme.catalog.product.projection.ProjectionBatch.Revision;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Rows of one generation's copy of accepted state and of its public view. Callers hold the generation's lock. */
@Repository
class ProjectionRepository {

    private static final Map<String, String> SQL_REVISIONS = Map.of(
            AggregateType.ITEM.wire(),
            "SELECT item_id, revision FROM item WHERE generation_id = ? AND item_id = ANY(?)",
            AggregateType.MAPPING.wire(),
            "SELECT mapping_id, revision FROM mapping WHERE generation_id = ? AND mapping_id = ANY(?)",
            AggregateType.POLICY.wire(),
            "SELECT policy_id, revision FROM policy WHERE generation_id = ? AND policy_id = ANY(?)",
            AggregateType.RELEASE.wire(),
            "SELECT release_id, revision FROM release WHERE generation_id = ? AND release_id = ANY(?)");
    /** The tracked types in the order of the branches of {@link #SQL_ALL_REVISIONS}. */
    private static final List<String> TRACKED = AggregateType.acceptedStateNames();
    /*
     * The statements every delivery runs (the revision lookup, the revision rows and the item upsert) name the
     * generation's own partitions ({@code %1$d}: the generation; create_generation_partitions and the shadow load
     * name them <table>_g<generation>), not the partitioned parents. Through a parent, PostgreSQL plans them
     * afresh on every execution (planning then costs more than executing; docs/benchmarks-archive.md, "Fourth
     * session"): a custom plan prunes to the one partition, so the plan cache never trusts the generic
     * plan, and forcing generic plans would lock every partition at each execution (PostgreSQL 15). On the
     * partition itself there is nothing to prune. The parent's predicate on generation_id stays: the partition's
     * bound CHECK makes it true, and the parameters stay as they were.
     */
    private static final String SQL_ALL_REVISIONS = """
            SELECT 0, item_id, revision FROM item_g%1$d WHERE generation_id = ? AND item_id = ANY(?)
            UNION ALL
            SELECT 1, mapping_id, revision FROM mapping_g%1$d WHERE generation_id = ? AND mapping_id = ANY(?)
            UNION ALL
            SELECT 2, policy_id, revision FROM policy_g%1$d WHERE generation_id = ? AND policy_id = ANY(?)
            UNION ALL
            SELECT 3, release_id, revision FROM release_g%1$d WHERE generation_id = ? AND release_id = ANY(?)
            """;
    private static final String SQL_INSERT_REVISIONS = """
            INSERT INTO aggregate_revision_g%1$d (generation_id, aggregate_type, aggregate_id, revision, content,
                                                  deleted, epoch, position, event_id)
            SELECT ?, r.aggregate_type, r.aggregate_id, r.revision, r.content::jsonb, r.deleted, r.epoch, r.position,
                   r.event_id::uuid
              FROM unnest(?::text[], ?::text[], ?::integer[], string_to_array(?, chr(30)), ?::boolean[], ?::bigint[],
                          ?::bigint[], ?::text[])
                   AS r(aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id)
            """;
    /** Upserts items; answers the ids whose row before the statement was a deletion. */
    private static final String SQL_UPSERT_ITEMS = """
            WITH previous AS (
                SELECT item_id FROM item_g%1$d WHERE generation_id = ? AND item_id = ANY(?) AND deleted
            ), upserted AS (
                INSERT INTO item_g%1$d (generation_id, item_id, revision, attributes, deleted, epoch, position)
                SELECT ?, r.item_id, r.revision,
                       CASE WHEN r.deleted THEN '{}'::jsonb ELSE r.content::jsonb -> 'attributes' END,
                       r.deleted, r.epoch, r.position
                  FROM unnest(?::text[], ?::integer[], string_to_array(?, chr(30)), ?::boolean[], ?::bigint[],
                              ?::bigint[])
                       AS r(item_id, revision, content, deleted, epoch, position)
                ON CONFLICT (generation_id, item_id) DO UPDATE
                   SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                       epoch = excluded.epoch, position = excluded.position)
            SELECT item_id FROM previous
            """;
    /**
     * Both of the above in one statement (one round trip): they write different tables and neither reads the
     * other's, so running them as data-modifying CTEs of one statement (one snapshot) is the same as one after the
     * other.
     */
    private static final String SQL_INSERT_REVISIONS_UPSERT_ITEMS = "WITH revisions AS (\n" + SQL_INSERT_REVISIONS
            + "), " + SQL_UPSERT_ITEMS.substring("WITH ".length());
    private static final String SQL_UPSERT_MAPPINGS = """
            INSERT INTO mapping (generation_id, mapping_id, revision, source, target, epoch, position)
            SELECT ?, r.mapping_id, r.revision, r.content::jsonb ->> 'source', r.content::jsonb ->> 'target',
                   r.epoch, r.position
              FROM unnest(?::text[], ?::integer[], string_to_array(?, chr(30)), ?::bigint[], ?::bigint[])
                   AS r(mapping_id, revision, content, epoch, position)
            ON CONFLICT (generation_id, mapping_id) DO UPDATE
               SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_UPSERT_POLICIES = """
            INSERT INTO policy (generation_id, policy_id, revision, rules, epoch, position)
            SELECT ?, r.policy_id, r.revision, r.content::jsonb -> 'rules', r.epoch, r.position
              FROM unnest(?::text[], ?::integer[], string_to_array(?, chr(30)), ?::bigint[], ?::bigint[])
                   AS r(policy_id, revision, content, epoch, position)
            ON CONFLICT (generation_id, policy_id) DO UPDATE
               SET revision = excluded.revision, rules = excluded.rules,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_UPSERT_RELEASES = """
            INSERT INTO release (generation_id, release_id, revision, visibility, items, epoch, position)
            SELECT ?, r.release_id, r.revision, r.content::jsonb ->> 'visibility', r.content::jsonb -> 'items',
                   r.epoch, r.position
              FROM unnest(?::text[], ?::integer[], string_to_array(?, chr(30)), ?::bigint[], ?::bigint[])
                   AS r(release_id, revision, content, epoch, position)
            ON CONFLICT (generation_id, release_id) DO UPDATE
               SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_DELETE_RELEASE_ITEMS = """
            DELETE FROM release_item WHERE generation_id = ? AND release_id = ANY(?) RETURNING item_id
            """;
    private static final String SQL_INSERT_RELEASE_ITEMS = """
            INSERT INTO release_item (generation_id, release_id, item_id, revision)
            SELECT ?, named.release_id, named.item_id, named.revision
              FROM unnest(?::text[], ?::text[], ?::integer[]) AS named(release_id, item_id, revision)
            """;
    private static final String SQL_DELETE_PUBLIC = """
            DELETE FROM public_item p USING unnest(?::text[]) AS q(item_id)
             WHERE p.generation_id = ? AND p.item_id = q.item_id
            """;
    /**
     * The public-view rule in one query; {@code %s} is the item filter. The latest PUBLIC release's row per item is
     * chosen first and the search document computed after, once per public item rather than once per candidate.
     */
    private static final String SQL_INSERT_PUBLIC = """
            INSERT INTO public_item (generation_id, item_id, revision, release_id, release_epoch, release_position,
                                     attributes, document)
            SELECT latest.generation_id, latest.item_id, latest.revision, latest.release_id, latest.release_epoch,
                   latest.release_position, latest.content -> 'attributes',
                   search_document(latest.content -> 'attributes', latest.item_id)
              FROM (SELECT DISTINCT ON (ri.item_id)
                           ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch AS release_epoch,
                           r.position AS release_position, ar.content
                      FROM release_item ri
                      JOIN release r ON r.generation_id = ri.generation_id AND r.release_id = ri.release_id
                      JOIN item i ON i.generation_id = ri.generation_id AND i.item_id = ri.item_id
                      JOIN aggregate_revision ar ON ar.generation_id = ri.generation_id
                                                AND ar.aggregate_type = 'item' AND ar.aggregate_id = ri.item_id
                                                AND ar.revision = ri.revision
                     WHERE ri.generation_id = ? %s
                       AND r.visibility = 'PUBLIC' AND NOT i.deleted AND NOT ar.deleted
                     ORDER BY ri.item_id, r.epoch DESC, r.position DESC) latest
            """;
    /**
     * The public-view rule for the given items, driven by the id list: every row is found by a primary-key (or
     * {@code release_item_by_item}) probe per id, so the cost follows the number of ids and not the size of the
     * generation, whatever the table statistics say (a live generation starts empty and is not analyzed before its
     * tables grow; with the planner's join order of {@link #SQL_INSERT_PUBLIC} a page of 5000 events then read every
     * item revision of the generation).
     */
    private static final String SQL_REFRESH_PUBLIC = """
            INSERT INTO public_item (generation_id, item_id, revision, release_id, release_epoch, release_position,
                                     attributes, document)
            SELECT ?, latest.item_id, latest.revision, latest.release_id, latest.release_epoch,
                   latest.release_position, latest.content -> 'attributes',
                   search_document(latest.content -> 'attributes', latest.item_id)
              FROM (SELECT DISTINCT ON (q.item_id)
                           q.item_id, ri.revision, ri.release_id, r.epoch AS release_epoch,
                           r.position AS release_position, ar.content
                      FROM unnest(?::text[]) AS q(item_id)
                      CROSS JOIN LATERAL (SELECT 1 FROM item i
                                           WHERE i.generation_id = ? AND i.item_id = q.item_id AND NOT i.deleted
                                          OFFSET 0) i
                      CROSS JOIN LATERAL (SELECT ri.release_id, ri.revision FROM release_item ri
                                           WHERE ri.generation_id = ? AND ri.item_id = q.item_id OFFSET 0) ri
                      CROSS JOIN LATERAL (SELECT r.epoch, r.position FROM release r
                                           WHERE r.generation_id = ? AND r.release_id = ri.release_id
                                             AND r.visibility = 'PUBLIC' OFFSET 0) r
                      CROSS JOIN LATERAL (SELECT ar.content FROM aggregate_revision ar
                                           WHERE ar.generation_id = ? AND ar.aggregate_type = 'item'
                                             AND ar.aggregate_id = q.item_id AND ar.revision = ri.revision
                                             AND NOT ar.deleted OFFSET 0) ar
                     ORDER BY q.item_id, r.epoch DESC, r.position DESC) latest
            """;
    private static final String SQL_REBUILD_PUBLIC = SQL_INSERT_PUBLIC.formatted("");
    private static final String SQL_CLEAR_PUBLIC = "DELETE FROM public_item WHERE generation_id = ?";

    private static final char RS = '\u001e';
    private static final int ALL_REVISIONS = 0;
    private static final int INSERT_REVISIONS = 1;
    private static final int UPSERT_ITEMS = 2;
    private static final int INSERT_REVISIONS_UPSERT_ITEMS = 3;
    /** The four statements above for each generation, in this order (formatted once per generation). */
    private final PartitionStatements partitions = new PartitionStatements(List.of(SQL_ALL_REVISIONS,
            SQL_INSERT_REVISIONS, SQL_UPSERT_ITEMS, SQL_INSERT_REVISIONS_UPSERT_ITEMS));

    private final JdbcClient jdbc;

    ProjectionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @return whether this repository keeps revisions of {@code aggregateType}; static, because the apply asks
     *         several times per event and a call on the repository bean goes through its proxy
     */
    static boolean tracks(String aggregateType) {
        return SQL_REVISIONS.containsKey(aggregateType);
    }

    /** Current revision of each of {@code ids} that exists (deleted items included). */
    Map<String, Integer> revisions(long generation, String aggregateType, Collection<String> ids) {
        Map<String, Integer> out = new HashMap<>();
        jdbc.sql(SQL_REVISIONS.get(aggregateType)).params(generation, ids.toArray(String[]::new))
                .query(rs -> {
                    out.put(rs.getString(1), rs.getInt(2));
                });
        return out;
    }

    /** Like {@link #revisions(long, String, Collection)} for several tracked types, in one query. */
    Map<String, Map<String, Integer>> revisions(long generation, Map<String, ? extends Collection<String>> idsByType) {
        Object[] params = new Object[2 * TRACKED.size()];
        Map<String, Map<String, Integer>> out = new HashMap<>();
        for (int i = 0; i < TRACKED.size(); i++) {
            Collection<String> ids = idsByType.get(TRACKED.get(i));
            ids = ids == null ? List.of() : ids;
            params[2 * i] = generation;
            params[2 * i + 1] = ids.toArray(String[]::new);
            out.put(TRACKED.get(i), new HashMap<>());
        }
        jdbc.sql(partitions.get(ALL_REVISIONS, generation)).params(params).query(rs -> {
            out.get(TRACKED.get(rs.getInt(1))).put(rs.getString(2), rs.getInt(3));
        });
        return out;
    }

    private void insertRevisions(long generation, List<Revision> revisions) {
        jdbc.sql(partitions.get(INSERT_REVISIONS, generation)).params(revisionParams(generation, revisions)).update();
    }

    /** Upserts current item rows, at most one per item. @return the items whose row was a deletion before */
    private List<String> upsertItems(long generation, Collection<Current> items) {
        if (items.isEmpty()) {
            return List.of();
        }
        return jdbc.sql(partitions.get(UPSERT_ITEMS, generation)).params(itemParams(generation, items))
                .query(String.class).list();
    }

    /**
     * {@link #insertRevisions} and {@link #upsertItems} in one round trip (the usual live delivery writes both).
     * @return the items whose row was a deletion before
     */
    List<String> insertRevisionsAndUpsertItems(long generation, List<Revision> revisions, Collection<Current> items) {
        if (revisions.isEmpty() || items.isEmpty()) {
            insertRevisions(generation, revisions);
            return upsertItems(generation, items);
        }
        Object[] r = revisionParams(generation, revisions);
        Object[] i = itemParams(generation, items);
        Object[] both = Arrays.copyOf(r, r.length + i.length);
        System.arraycopy(i, 0, both, r.length, i.length);
        return jdbc.sql(partitions.get(INSERT_REVISIONS_UPSERT_ITEMS, generation)).params(both).query(String.class)
                .list();
    }

    private static Object[] revisionParams(long generation, List<Revision> revisions) {
        int n = revisions.size();
        String[] types = new String[n];
        String[] ids = new String[n];
        Integer[] numbers = new Integer[n];
        StringBuilder contents = new StringBuilder(n * 256);
        Boolean[] deleted = new Boolean[n];
        Long[] epochs = new Long[n];
        Long[] positions = new Long[n];
        String[] eventIds = new String[n];
        for (int i = 0; i < n; i++) {
            Revision r = revisions.get(i);
            types[i] = r.made().aggregateType();
            ids[i] = r.made().aggregateId();
            numbers[i] = r.made().revision();
            appendJoined(contents, i, r.contentJson());
            deleted[i] = r.deleted();
            epochs[i] = r.epoch();
            positions[i] = r.position();
            eventIds[i] = r.eventId().toString();
        }
        return new Object[] {generation, types, ids, numbers, contents.toString(), deleted, epochs, positions,
                eventIds};
    }

    private static Object[] itemParams(long generation, Collection<Current> items) {
        Columns c = new Columns(items);
        Boolean[] deleted = items.stream().map(Current::deleted).toArray(Boolean[]::new);
        return new Object[] {generation, c.ids, generation, c.ids, c.revisions, c.contents, deleted, c.epochs,
                c.positions};
    }

    void upsertMappings(long generation, Collection<Current> mappings) {
        if (!mappings.isEmpty()) {
            Columns c = new Columns(mappings);
            jdbc.sql(SQL_UPSERT_MAPPINGS).params(generation, c.ids, c.revisions, c.contents, c.epochs, c.positions)
                    .update();
        }
    }

    void upsertPolicies(long generation, Collection<Current> policies) {
        if (!policies.isEmpty()) {
            Columns c = new Columns(policies);
            jdbc.sql(SQL_UPSERT_POLICIES).params(generation, c.ids, c.revisions, c.contents, c.epochs, c.positions)
                    .update();
        }
    }

    void upsertReleases(long generation, Collection<Current> releases) {
        if (!releases.isEmpty()) {
            Columns c = new Columns(releases);
            jdbc.sql(SQL_UPSERT_RELEASES).params(generation, c.ids, c.revisions, c.contents, c.epochs, c.positions)
                    .update();
        }
    }

    /** Replaces the item revisions each given release names. @return the items they named before */
    List<String> replaceReleaseItems(long generation, Map<String, Map<String, Integer>> namedByRelease) {
        if (namedByRelease.isEmpty()) {
            return List.of();
        }
        List<String> before = jdbc.sql(SQL_DELETE_RELEASE_ITEMS)
                .params(generation, namedByRelease.keySet().toArray(String[]::new)).query(String.class).list();
        int n = namedByRelease.values().stream().mapToInt(Map::size).sum();
        if (n > 0) {
            String[] releaseIds = new String[n];
            String[] itemIds = new String[n];
            Integer[] revisions = new Integer[n];
            int i = 0;
            for (Map.Entry<String, Map<String, Integer>> release : namedByRelease.entrySet()) {
                for (Map.Entry<String, Integer> named : release.getValue().entrySet()) {
                    releaseIds[i] = release.getKey();
                    itemIds[i] = named.getKey();
                    revisions[i++] = named.getValue();
                }
            }
            jdbc.sql(SQL_INSERT_RELEASE_ITEMS).params(generation, releaseIds, itemIds, revisions).update();
        }
        return before;
    }

    /**
     * Appends the {@code i}-th JSON text of a list joined by U+001E: JSON text never holds that character raw (a
     * serializer escapes control characters), and PostgreSQL splits such a text several times faster than it parses
     * an array literal of quoted JSON (the resolver's batch writes measured the same).
     */
    private static void appendJoined(StringBuilder joined, int i, String json) {
        if (json.indexOf(RS) >= 0) {
            throw new IllegalArgumentException("JSON text holds a raw U+001E");
        }
        if (i > 0) {
            joined.append(RS);
        }
        joined.append(json);
    }

    /** The columns of current rows as arrays, for {@code unnest}. */
    private static final class Columns {
        final String[] ids;
        final Integer[] revisions;
        final Long[] epochs;
        final Long[] positions;
        /** The payloads joined by U+001E, for {@code string_to_array(?, chr(30))}. */
        final String contents;

        Columns(Collection<Current> rows) {
            int n = rows.size();
            ids = new String[n];
            revisions = new Integer[n];
            epochs = new Long[n];
            positions = new Long[n];
            StringBuilder joined = new StringBuilder(n * 256);
            int i = 0;
            for (Current r : rows) {
                ids[i] = r.id();
                revisions[i] = r.revision();
                epochs[i] = r.epoch();
                positions[i] = r.position();
                appendJoined(joined, i++, r.contentJson());
            }
            contents = joined.toString();
        }
    }

    /** Recomputes the public view (and search document) of the given items from the copied accepted state. */
    void refreshPublic(long generation, Collection<String> itemIds) {
        if (itemIds.isEmpty()) {
            return;
        }
        String[] ids = itemIds.toArray(String[]::new);
        jdbc.sql(SQL_DELETE_PUBLIC).params(ids, generation).update();
        jdbc.sql(SQL_REFRESH_PUBLIC).params(generation, ids, generation, generation, generation, generation).update();
    }

    /** Recomputes the whole public view of a generation, e.g. after a bulk load. */
    void rebuildPublic(long generation) {
        jdbc.sql(SQL_CLEAR_PUBLIC).params(generation).update();
        jdbc.sql(SQL_REBUILD_PUBLIC).params(generation).update();
    }
}
