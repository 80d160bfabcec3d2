package com.acme.catalog.product.projection;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.product.projection.ProjectionBatch.Current;
import com.acme.catalog.product.projection.ProjectionBatch.Revision;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Rows of one generation's copy of accepted state and of its public view. Callers hold the generation's lock. */
@Repository
class ProjectionRepository {

    /** The tracked types in the order of the branches of {@link #SQL_CURRENT_STATE}. */
    private static final List<String> TRACKED = List.of("item", "mapping", "policy", "release");
    /**
     * The current revision of each named aggregate that exists (deleted items included), one primary-key probe per id (the plan does not depend on the statistics of
     * a young generation), and for items whether the row is a deletion, for releases the items they name.
     */
    private static final String SQL_CURRENT_STATE = """
            SELECT 0, q.id, a.revision, a.deleted, NULL::text[]
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision, deleted FROM item
                                   WHERE generation_id = ? AND item_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 1, q.id, a.revision, false, NULL
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM mapping
                                   WHERE generation_id = ? AND mapping_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 2, q.id, a.revision, false, NULL
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM policy
                                   WHERE generation_id = ? AND policy_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 3, q.id, a.revision, false,
                   ARRAY(SELECT ri.item_id FROM release_item ri
                          WHERE ri.generation_id = ? AND ri.release_id = q.id)
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM release
                                   WHERE generation_id = ? AND release_id = q.id OFFSET 0) a
            """;
    /*
     * A whole batch is one statement made of the parts below that have rows (data-modifying CTEs; see write):
     * revision rows (the payloads, parsed once: every current row takes its JSON from the revision row the
     * statement inserted), current rows, release items, inbox rows, and the deletion of the held rows the run
     * consumed. Payloads travel as one text joined by U+001E, which JSON text never holds raw and which PostgreSQL
     * splits much faster than it parses an array literal of quoted JSON. A release's item list is replaced by
     * deleting the pairs it no longer names and upserting the ones it names (disjoint row sets: the parts of one
     * statement never touch a row twice).
     */
    private static final String PART_REVISIONS = """
            revisions AS (
                INSERT INTO aggregate_revision (generation_id, aggregate_type, aggregate_id, revision, content,
                                                deleted, epoch, position, event_id)
                SELECT ?, u.aggregate_type, u.aggregate_id, u.revision, u.content::jsonb, u.deleted, u.epoch,
                       u.position, u.event_id
                  FROM unnest(?::text[], ?::text[], ?::integer[], string_to_array(?, chr(30)), ?::boolean[],
                              ?::bigint[], ?::bigint[], ?::uuid[])
                       AS u(aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id)
                RETURNING aggregate_type, aggregate_id, revision, content)""";
    private static final String PART_ITEMS = """
            items AS (
                INSERT INTO item (generation_id, item_id, revision, attributes, deleted, epoch, position)
                SELECT ?, u.item_id, u.revision,
                       CASE WHEN u.deleted THEN '{}'::jsonb ELSE r.content -> 'attributes' END,
                       u.deleted, u.epoch, u.position
                  FROM unnest(?::text[], ?::integer[], ?::boolean[], ?::bigint[], ?::bigint[])
                       AS u(item_id, revision, deleted, epoch, position)
                  JOIN revisions r ON r.aggregate_type = 'item' AND r.aggregate_id = u.item_id
                                  AND r.revision = u.revision
                ON CONFLICT (generation_id, item_id) DO UPDATE
                   SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                       epoch = excluded.epoch, position = excluded.position)""";
    private static final String PART_MAPPINGS = """
            mappings AS (
                INSERT INTO mapping (generation_id, mapping_id, revision, source, target, epoch, position)
                SELECT ?, u.id, u.revision, r.content ->> 'source', r.content ->> 'target', u.epoch, u.position
                  FROM unnest(?::text[], ?::integer[], ?::bigint[], ?::bigint[]) AS u(id, revision, epoch, position)
                  JOIN revisions r ON r.aggregate_type = 'mapping' AND r.aggregate_id = u.id
                                  AND r.revision = u.revision
                ON CONFLICT (generation_id, mapping_id) DO UPDATE
                   SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                       epoch = excluded.epoch, position = excluded.position)""";
    private static final String PART_POLICIES = """
            policies AS (
                INSERT INTO policy (generation_id, policy_id, revision, rules, epoch, position)
                SELECT ?, u.id, u.revision, r.content -> 'rules', u.epoch, u.position
                  FROM unnest(?::text[], ?::integer[], ?::bigint[], ?::bigint[]) AS u(id, revision, epoch, position)
                  JOIN revisions r ON r.aggregate_type = 'policy' AND r.aggregate_id = u.id
                                  AND r.revision = u.revision
                ON CONFLICT (generation_id, policy_id) DO UPDATE
                   SET revision = excluded.revision, rules = excluded.rules,
                       epoch = excluded.epoch, position = excluded.position)""";
    private static final String PART_RELEASES = """
            releases AS (
                INSERT INTO release (generation_id, release_id, revision, visibility, items, epoch, position)
                SELECT ?, u.id, u.revision, r.content ->> 'visibility', r.content -> 'items', u.epoch, u.position
                  FROM unnest(?::text[], ?::integer[], ?::bigint[], ?::bigint[]) AS u(id, revision, epoch, position)
                  JOIN revisions r ON r.aggregate_type = 'release' AND r.aggregate_id = u.id
                                  AND r.revision = u.revision
                ON CONFLICT (generation_id, release_id) DO UPDATE
                   SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                       epoch = excluded.epoch, position = excluded.position),
            named AS (
                SELECT * FROM unnest(?::text[], ?::text[], ?::integer[]) AS n(release_id, item_id, revision)),
            unnamed AS (
                DELETE FROM release_item ri
                 USING unnest(?::text[]) AS t(release_id)
                 WHERE ri.generation_id = ? AND ri.release_id = t.release_id
                   AND NOT EXISTS (SELECT 1 FROM named n
                                    WHERE n.release_id = ri.release_id AND n.item_id = ri.item_id)),
            renamed AS (
                INSERT INTO release_item (generation_id, release_id, item_id, revision)
                SELECT ?, n.release_id, n.item_id, n.revision FROM named n
                ON CONFLICT (generation_id, release_id, item_id) DO UPDATE SET revision = excluded.revision)""";
    private static final String PART_INBOX = """
            recorded AS (
                INSERT INTO inbox (generation_id, position, event_id, event_type, outcome, chain_digest)
                SELECT ?, r.position, r.event_id, r.event_type, r.outcome, r.chain_digest
                  FROM unnest(?::bigint[], ?::uuid[], ?::text[], ?::text[], ?::text[])
                       AS r(position, event_id, event_type, outcome, chain_digest))""";
    private static final String PART_RELEASE_HELD = """
            released AS (
                DELETE FROM held_event h USING unnest(?::bigint[]) AS c(position)
                 WHERE h.generation_id = ? AND h.position = c.position)""";
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
                   setweight(to_tsvector('english', coalesce(latest.content #>> '{attributes,name}', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', latest.content -> 'attributes', '["string"]'), 'B')
                   || setweight(to_tsvector('simple', latest.item_id), 'C')
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
                   setweight(to_tsvector('english', coalesce(latest.content #>> '{attributes,name}', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', latest.content -> 'attributes', '["string"]'), 'B')
                   || setweight(to_tsvector('simple', latest.item_id), 'C')
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

    /** Separates the payloads of {@link #PART_REVISIONS}. */
    private static final char RS = '\u001e';

    private final JdbcClient jdbc;
    private final JdbcTemplate template;

    ProjectionRepository(JdbcClient jdbc, JdbcTemplate template) {
        this.jdbc = jdbc;
        this.template = template;
    }

    /** @return whether this repository keeps revisions of {@code aggregateType} */
    boolean tracks(String aggregateType) {
        return TRACKED.contains(aggregateType);
    }









    /** The columns of current rows as arrays, for {@code unnest}. */
    private static final class Columns {
        final String[] ids;
        final Integer[] revisions;
        final Long[] epochs;
        final Long[] positions;

        Columns(Collection<Current> rows) {
            int n = rows.size();
            ids = new String[n];
            revisions = new Integer[n];
            epochs = new Long[n];
            positions = new Long[n];
            int i = 0;
            for (Current r : rows) {
                ids[i] = r.id();
                revisions[i] = r.revision();
                epochs[i] = r.epoch();
                positions[i++] = r.position();
            }
        }
    }

    /** The current state of the named aggregates of several tracked types, in one query. */
    CurrentState currentState(long generation, Map<String, ? extends Collection<String>> idsByType) {
        Object[] params = new Object[3 * TRACKED.size() - 1];
        Map<String, Map<String, Integer>> revisions = new HashMap<>();
        java.util.Set<String> deleted = new java.util.HashSet<>();
        Map<String, List<String>> named = new HashMap<>();
        int p = 0;
        for (int i = 0; i < TRACKED.size(); i++) {
            Collection<String> ids = idsByType.get(TRACKED.get(i));
            ids = ids == null ? List.of() : ids;
            if (i == 3) {
                params[p++] = generation;
            }
            params[p++] = ids.toArray(String[]::new);
            params[p++] = generation;
            revisions.put(TRACKED.get(i), new HashMap<>());
        }
        jdbc.sql(SQL_CURRENT_STATE).params(java.util.Arrays.copyOf(params, p)).query(rs -> {
            int type = rs.getInt(1);
            String id = rs.getString(2);
            revisions.get(TRACKED.get(type)).put(id, rs.getInt(3));
            if (type == 0 && rs.getBoolean(4)) {
                deleted.add(id);
            } else if (type == 3) {
                named.put(id, List.of((String[]) rs.getArray(5).getArray()));
            }
        });
        return new CurrentState(revisions, deleted, named);
    }

    /**
     * Writes a batch in one statement of the parts that have rows and then, when it may change the public view,
     * recomputes the view of the affected items: all in one round trip (the statements run in order, each seeing
     * the ones before).
     */
    void write(ProjectionBatch batch) {
        long g = batch.generation();
        List<String> parts = new ArrayList<>(8);
        List<Object> p = new ArrayList<>(64);
        List<Revision> revs = batch.revisions();
        int n = revs.size();
        if (n > 0) {
            String[] types = new String[n];
            String[] ids = new String[n];
            Integer[] numbers = new Integer[n];
            StringBuilder contents = new StringBuilder(n * 256);
            Boolean[] deleted = new Boolean[n];
            Long[] epochs = new Long[n];
            Long[] positions = new Long[n];
            String[] eventIds = new String[n];
            for (int i = 0; i < n; i++) {
                Revision r = revs.get(i);
                types[i] = r.made().aggregateType();
                ids[i] = r.made().aggregateId();
                numbers[i] = r.made().revision();
                if (i > 0) {
                    contents.append(RS);
                }
                contents.append(r.contentJson());
                deleted[i] = r.deleted();
                epochs[i] = r.epoch();
                positions[i] = r.position();
                eventIds[i] = r.eventId().toString();
            }
            parts.add(PART_REVISIONS);
            Collections.addAll(p, g, types, ids, numbers, contents.toString(), deleted, epochs, positions, eventIds);
        }
        if (!batch.items().isEmpty()) {
            Columns c = new Columns(batch.items().values());
            Boolean[] deleted = batch.items().values().stream().map(Current::deleted).toArray(Boolean[]::new);
            parts.add(PART_ITEMS);
            Collections.addAll(p, g, c.ids, c.revisions, deleted, c.epochs, c.positions);
        }
        current(parts, p, g, PART_MAPPINGS, batch.mappings());
        current(parts, p, g, PART_POLICIES, batch.policies());
        if (current(parts, p, g, PART_RELEASES, batch.releases())) {
            Map<String, Map<String, Integer>> byRelease = batch.releaseItems();
            int m = byRelease.values().stream().mapToInt(Map::size).sum();
            String[] releaseIds = new String[m];
            String[] itemIds = new String[m];
            Integer[] itemRevisions = new Integer[m];
            int k = 0;
            for (Map.Entry<String, Map<String, Integer>> release : byRelease.entrySet()) {
                for (Map.Entry<String, Integer> named : release.getValue().entrySet()) {
                    releaseIds[k] = release.getKey();
                    itemIds[k] = named.getKey();
                    itemRevisions[k++] = named.getValue();
                }
            }
            Collections.addAll(p, releaseIds, itemIds, itemRevisions, byRelease.keySet().toArray(String[]::new), g,
                    g);
        }
        List<ProjectionBatch.Processed> done = batch.processed();
        int d = done.size();
        if (d > 0) {
            Long[] positions = new Long[d];
            String[] eventIds = new String[d];
            String[] types = new String[d];
            String[] outcomes = new String[d];
            String[] digests = new String[d];
            for (int i = 0; i < d; i++) {
                ProjectionBatch.Processed e = done.get(i);
                positions[i] = e.position();
                eventIds[i] = e.eventId().toString();
                types[i] = e.type();
                outcomes[i] = e.outcome();
                digests[i] = e.chainDigest();
            }
            parts.add(PART_INBOX);
            Collections.addAll(p, g, positions, eventIds, types, outcomes, digests);
        }
        if (!batch.releasedHeld().isEmpty()) {
            parts.add(PART_RELEASE_HELD);
            Collections.addAll(p, batch.releasedHeld().toArray(Long[]::new), g);
        }
        StringBuilder sql = new StringBuilder();
        if (!parts.isEmpty()) {
            sql.append("WITH ").append(String.join(",\n", parts)).append("\nSELECT 1");
        }
        if (!batch.refreshed().isEmpty()) {
            String[] refresh = batch.refreshed().toArray(String[]::new);
            sql.append(sql.isEmpty() ? "" : ";\n").append(SQL_DELETE_PUBLIC.strip()).append(";\n")
                    .append(SQL_REFRESH_PUBLIC);
            Collections.addAll(p, refresh, g, g, refresh, g, g, g, g);
        }
        if (sql.isEmpty()) {
            return;
        }
        Object[] params = p.toArray();
        template.execute(sql.toString(), (PreparedStatementCallback<Void>) ps -> {
            new ArgumentPreparedStatementSetter(params).setValues(ps);
            ps.execute();
            while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
                // each statement's result is consumed in turn; pgjdbc reports errors at execute
            }
            return null;
        });
    }

    /** Adds the part writing current rows of one type when there are any; @return whether it did */
    private static boolean current(List<String> parts, List<Object> p, long g, String part, Map<String, Current> rows) {
        if (rows.isEmpty()) {
            return false;
        }
        Columns c = new Columns(rows.values());
        parts.add(part);
        Collections.addAll(p, g, c.ids, c.revisions, c.epochs, c.positions);
        return true;
    }

    /** Recomputes the whole public view of a generation, e.g. after a bulk load. */
    void rebuildPublic(long generation) {
        jdbc.sql(SQL_CLEAR_PUBLIC).params(generation).update();
        jdbc.sql(SQL_REBUILD_PUBLIC).params(generation).update();
    }
}
