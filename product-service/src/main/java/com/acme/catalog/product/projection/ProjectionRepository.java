package com.acme.catalog.product.projection;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Rows of one generation's copy of accepted state and of its public view. Callers hold the generation's lock. */
@Repository
class ProjectionRepository {

    private static final Map<String, String> SQL_REVISIONS = Map.of(
            "item", "SELECT item_id, revision FROM item WHERE generation_id = ? AND item_id = ANY(?)",
            "mapping", "SELECT mapping_id, revision FROM mapping WHERE generation_id = ? AND mapping_id = ANY(?)",
            "policy", "SELECT policy_id, revision FROM policy WHERE generation_id = ? AND policy_id = ANY(?)",
            "release", "SELECT release_id, revision FROM release WHERE generation_id = ? AND release_id = ANY(?)");
    /** Inserts the revision row; every current-row write below runs it in the same statement. */
    private static final String REVISION_CTE = """
            revision AS (
                INSERT INTO aggregate_revision (generation_id, aggregate_type, aggregate_id, revision, content, deleted,
                                                epoch, position, event_id)
                VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?))
            """;
    private static final String SQL_WRITE_ITEM = "WITH previous AS (SELECT deleted FROM item WHERE generation_id = ? "
            + "AND item_id = ?), " + REVISION_CTE + """
            , upserted AS (
                INSERT INTO item (generation_id, item_id, revision, attributes, deleted, epoch, position)
                VALUES (?, ?, ?, ?::jsonb, ?, ?, ?)
                ON CONFLICT (generation_id, item_id) DO UPDATE
                   SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                       epoch = excluded.epoch, position = excluded.position)
            SELECT coalesce((SELECT deleted FROM previous), false)
            """;
    private static final String SQL_WRITE_MAPPING = "WITH " + REVISION_CTE + """
            INSERT INTO mapping (generation_id, mapping_id, revision, source, target, epoch, position)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (generation_id, mapping_id) DO UPDATE
               SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_WRITE_POLICY = "WITH " + REVISION_CTE + """
            INSERT INTO policy (generation_id, policy_id, revision, rules, epoch, position)
            VALUES (?, ?, ?, ?::jsonb, ?, ?)
            ON CONFLICT (generation_id, policy_id) DO UPDATE
               SET revision = excluded.revision, rules = excluded.rules,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_WRITE_RELEASE = "WITH " + REVISION_CTE + """
            INSERT INTO release (generation_id, release_id, revision, visibility, items, epoch, position)
            VALUES (?, ?, ?, ?, ?::jsonb, ?, ?)
            ON CONFLICT (generation_id, release_id) DO UPDATE
               SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                   epoch = excluded.epoch, position = excluded.position
            """;
    private static final String SQL_DELETE_RELEASE_ITEMS = """
            DELETE FROM release_item WHERE generation_id = ? AND release_id = ? RETURNING item_id
            """;
    private static final String SQL_INSERT_RELEASE_ITEMS = """
            INSERT INTO release_item (generation_id, release_id, item_id, revision)
            SELECT ?, ?, named.item_id, named.revision FROM unnest(?::text[], ?::integer[]) AS named(item_id, revision)
            """;
    private static final String SQL_DELETE_PUBLIC = """
            DELETE FROM public_item WHERE generation_id = ? AND item_id = ANY(?)
            """;
    /** The public-view rule in one query; {@code %s} is the item filter. */
    private static final String SQL_INSERT_PUBLIC = """
            INSERT INTO public_item (generation_id, item_id, revision, release_id, release_epoch, release_position,
                                     attributes, document)
            SELECT DISTINCT ON (ri.item_id)
                   ri.generation_id, ri.item_id, ri.revision, r.release_id, r.epoch, r.position,
                   ar.content -> 'attributes',
                   setweight(to_tsvector('english', coalesce(ar.content #>> '{attributes,name}', '')), 'A')
                   || setweight(jsonb_to_tsvector('english', ar.content -> 'attributes', '["string"]'), 'B')
                   || setweight(to_tsvector('simple', ri.item_id), 'C')
              FROM release_item ri
              JOIN release r ON r.generation_id = ri.generation_id AND r.release_id = ri.release_id
              JOIN item i ON i.generation_id = ri.generation_id AND i.item_id = ri.item_id
              JOIN aggregate_revision ar ON ar.generation_id = ri.generation_id AND ar.aggregate_type = 'item'
                                        AND ar.aggregate_id = ri.item_id AND ar.revision = ri.revision
             WHERE ri.generation_id = ? %s
               AND r.visibility = 'PUBLIC' AND NOT i.deleted AND NOT ar.deleted
             ORDER BY ri.item_id, r.epoch DESC, r.position DESC
            """;
    private static final String SQL_REFRESH_PUBLIC = SQL_INSERT_PUBLIC.formatted("AND ri.item_id = ANY(?)");
    private static final String SQL_REBUILD_PUBLIC = SQL_INSERT_PUBLIC.formatted("");
    private static final String SQL_CLEAR_PUBLIC = "DELETE FROM public_item WHERE generation_id = ?";

    private final JdbcClient jdbc;

    ProjectionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** One revision row: the revision an event made, its content (the payload) and where it was made. */
    record Revision(AggregateRevision made, String contentJson, boolean deleted, long epoch, long position,
            java.util.UUID eventId) {
        static Revision of(IntegrationEvent e, boolean deleted) {
            return new Revision(e.made(), e.payload().toString(), deleted, e.epoch(), e.position(), e.eventId());
        }
    }

    /** @return whether this repository keeps revisions of {@code aggregateType} */
    boolean tracks(String aggregateType) {
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

    /**
     * Writes an item's revision row and current row.
     *
     * @return whether the item's previous current revision was a deletion (false when there was none)
     */
    boolean writeItem(long generation, Revision r, String attributesJson) {
        return jdbc.sql(SQL_WRITE_ITEM).params(generation, r.made().aggregateId())
                .params(revisionParams(generation, r))
                .params(generation, r.made().aggregateId(), r.made().revision(), attributesJson, r.deleted(),
                        r.epoch(), r.position())
                .query(Boolean.class).single();
    }

    void writeMapping(long generation, Revision r, String source, String target) {
        jdbc.sql(SQL_WRITE_MAPPING).params(revisionParams(generation, r))
                .params(generation, r.made().aggregateId(), r.made().revision(), source, target, r.epoch(),
                        r.position())
                .update();
    }

    void writePolicy(long generation, Revision r, String rulesJson) {
        jdbc.sql(SQL_WRITE_POLICY).params(revisionParams(generation, r))
                .params(generation, r.made().aggregateId(), r.made().revision(), rulesJson, r.epoch(), r.position())
                .update();
    }

    void writeRelease(long generation, Revision r, String visibility, String itemsJson) {
        jdbc.sql(SQL_WRITE_RELEASE).params(revisionParams(generation, r))
                .params(generation, r.made().aggregateId(), r.made().revision(), visibility, itemsJson, r.epoch(),
                        r.position())
                .update();
    }

    private static Object[] revisionParams(long generation, Revision r) {
        return new Object[] {generation, r.made().aggregateType(), r.made().aggregateId(), r.made().revision(),
                r.contentJson(), r.deleted(), r.epoch(), r.position(), r.eventId()};
    }

    /** Replaces the item revisions a release names. @return the items it named before */
    List<String> replaceReleaseItems(long generation, String releaseId, Map<String, Integer> named) {
        List<String> before = jdbc.sql(SQL_DELETE_RELEASE_ITEMS).params(generation, releaseId).query(String.class)
                .list();
        if (!named.isEmpty()) {
            String[] ids = named.keySet().toArray(String[]::new);
            Integer[] revisions = new Integer[ids.length];
            for (int i = 0; i < ids.length; i++) {
                revisions[i] = named.get(ids[i]);
            }
            jdbc.sql(SQL_INSERT_RELEASE_ITEMS).params(generation, releaseId, ids, revisions).update();
        }
        return before;
    }

    /** Recomputes the public view (and search document) of the given items from the copied accepted state. */
    void refreshPublic(long generation, Collection<String> itemIds) {
        if (itemIds.isEmpty()) {
            return;
        }
        String[] ids = itemIds.toArray(String[]::new);
        jdbc.sql(SQL_DELETE_PUBLIC).params(generation, ids).update();
        jdbc.sql(SQL_REFRESH_PUBLIC).params(generation, ids).update();
    }

    /** Recomputes the whole public view of a generation, e.g. after a bulk load. */
    void rebuildPublic(long generation) {
        jdbc.sql(SQL_CLEAR_PUBLIC).params(generation).update();
        jdbc.sql(SQL_REBUILD_PUBLIC).params(generation).update();
    }
}
