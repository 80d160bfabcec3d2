package com.acme.catalog.product.projection;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.ResultColumns;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.product.projection.ProjectionBatch.Current;
import com.acme.catalog.product.projection.ProjectionBatch.Revision;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Rows of one generation's copy of accepted state and of its public view. Callers hold the generation's lock.
 *
 * <p>Each statement is assembled once by {@link BoundSql}, its parameters named ({@code :generation}, bound once
 * however often the text uses it) and its rows of many values sent as {@link UnnestColumns} (one array per column,
 * JSON payloads as one separated text); the combined revision-and-item write is built from the same parts as the
 * two statements it combines. Rows are read by column name ({@link ResultColumns}).
 */
@Repository
class ProjectionRepository {

    /** The tracked types; the branches of {@link #ALL_REVISIONS} answer each one's index here as {@code kind}. */
    private static final List<String> TRACKED = AggregateType.acceptedStateNames();
    private static final ResultColumns REVISION_ROWS = ResultColumns.of("id", "revision");
    private static final ResultColumns KIND_REVISION_ROWS = ResultColumns.of("kind", "id", "revision");
    private static final ResultColumns ITEM_ID_ROWS = ResultColumns.of("item_id");

    /** Per tracked type (each named as its table, its id column {@code <type>_id}): current revisions of ids. */
    private static final Map<String, BoundSql<Ids>> REVISIONS = revisionsByType();
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
    /** {@link #REVISIONS} of every tracked type in one query, on the generation's partitions. */
    static final BoundSql<Lookup> ALL_REVISIONS = allRevisions();

    private static final UnnestColumns<Revision> REVISION_COLUMNS = UnnestColumns.of(Revision.class, "r")
            .text("aggregate_type", r -> r.made().aggregateType())
            .text("aggregate_id", r -> r.made().aggregateId())
            .ints("revision", r -> r.made().revision())
            .jsonTexts("content", Revision::contentJson)
            .flags("deleted", Revision::deleted)
            .bigints("epoch", Revision::epoch)
            .bigints("position", Revision::position)
            .uuids("event_id", Revision::eventId);
    static final BoundSql<Batch> INSERT_REVISIONS = BoundSql.<Batch>builder()
            .param("generation", Batch::generation)
            .sql("""
                    INSERT INTO aggregate_revision_g%1$d (generation_id, aggregate_type, aggregate_id, revision,
                                                          content, deleted, epoch, position, event_id)
                    SELECT :generation, r.aggregate_type, r.aggregate_id, r.revision, r.content::jsonb, r.deleted,
                           r.epoch, r.position, r.event_id
                      FROM\s""")
            .unnest(Batch::revisions, REVISION_COLUMNS)
            .build();

    private static final UnnestColumns<Current> ITEM_COLUMNS = UnnestColumns.of(Current.class, "r")
            .text("item_id", Current::id)
            .ints("revision", Current::revision)
            .jsonTexts("content", Current::contentJson)
            .flags("deleted", Current::deleted)
            .bigints("epoch", Current::epoch)
            .bigints("position", Current::position);
    /** The item upsert after its {@code WITH}; answers the ids whose row before the statement was a deletion. */
    private static final BoundSql<Batch> ITEM_PARTS = BoundSql.<Batch>builder()
            .param("generation", Batch::generation)
            .param("item_ids", Batch::ids)
            .sql("""
                    previous AS (
                        SELECT item_id FROM item_g%1$d
                         WHERE generation_id = :generation AND item_id = ANY(:item_ids) AND deleted
                    ), upserted AS (
                        INSERT INTO item_g%1$d (generation_id, item_id, revision, attributes, deleted, epoch, position)
                        SELECT :generation, r.item_id, r.revision,
                               CASE WHEN r.deleted THEN '{}'::jsonb ELSE r.content::jsonb -> 'attributes' END,
                               r.deleted, r.epoch, r.position
                          FROM\s""")
            .unnest(Batch::rows, ITEM_COLUMNS)
            .sql("""

                        ON CONFLICT (generation_id, item_id) DO UPDATE
                           SET revision = excluded.revision, attributes = excluded.attributes,
                               deleted = excluded.deleted, epoch = excluded.epoch, position = excluded.position)
                    SELECT item_id FROM previous
                    """)
            .build();
    /** Upserts items; answers the ids whose row before the statement was a deletion. */
    static final BoundSql<Batch> UPSERT_ITEMS = BoundSql.<Batch>builder()
            .sql("WITH ").include(ITEM_PARTS, b -> b).build();
    /**
     * Both of the above in one statement (one round trip): they write different tables and neither reads the
     * other's, so running them as data-modifying CTEs of one statement (one snapshot) is the same as one after the
     * other.
     */
    static final BoundSql<Batch> INSERT_REVISIONS_UPSERT_ITEMS = BoundSql.<Batch>builder()
            .sql("WITH revisions AS (\n").include(INSERT_REVISIONS, b -> b).sql("\n), ")
            .include(ITEM_PARTS, b -> b).build();

    private static final BoundSql<Batch> UPSERT_MAPPINGS = BoundSql.<Batch>builder()
            .param("generation", Batch::generation)
            .sql("""
                    INSERT INTO mapping (generation_id, mapping_id, revision, source, target, epoch, position)
                    SELECT :generation, r.mapping_id, r.revision, r.content::jsonb ->> 'source',
                           r.content::jsonb ->> 'target', r.epoch, r.position
                      FROM\s""")
            .unnest(Batch::rows, currentColumns("mapping_id"))
            .sql("""

                    ON CONFLICT (generation_id, mapping_id) DO UPDATE
                       SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                           epoch = excluded.epoch, position = excluded.position
                    """)
            .build();
    private static final BoundSql<Batch> UPSERT_POLICIES = BoundSql.<Batch>builder()
            .param("generation", Batch::generation)
            .sql("""
                    INSERT INTO policy (generation_id, policy_id, revision, rules, epoch, position)
                    SELECT :generation, r.policy_id, r.revision, r.content::jsonb -> 'rules', r.epoch, r.position
                      FROM\s""")
            .unnest(Batch::rows, currentColumns("policy_id"))
            .sql("""

                    ON CONFLICT (generation_id, policy_id) DO UPDATE
                       SET revision = excluded.revision, rules = excluded.rules,
                           epoch = excluded.epoch, position = excluded.position
                    """)
            .build();
    private static final BoundSql<Batch> UPSERT_RELEASES = BoundSql.<Batch>builder()
            .param("generation", Batch::generation)
            .sql("""
                    INSERT INTO release (generation_id, release_id, revision, visibility, items, epoch, position)
                    SELECT :generation, r.release_id, r.revision, r.content::jsonb ->> 'visibility',
                           r.content::jsonb -> 'items', r.epoch, r.position
                      FROM\s""")
            .unnest(Batch::rows, currentColumns("release_id"))
            .sql("""

                    ON CONFLICT (generation_id, release_id) DO UPDATE
                       SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                           epoch = excluded.epoch, position = excluded.position
                    """)
            .build();
    private static final BoundSql<Ids> DELETE_RELEASE_ITEMS = BoundSql.<Ids>builder()
            .param("generation", Ids::generation)
            .param("release_ids", Ids::ids)
            .sql("""
                    DELETE FROM release_item WHERE generation_id = :generation AND release_id = ANY(:release_ids)
                    RETURNING item_id
                    """)
            .build();
    private static final BoundSql<NamedItems> INSERT_RELEASE_ITEMS = BoundSql.<NamedItems>builder()
            .param("generation", NamedItems::generation)
            .param("release_ids", NamedItems::releaseIds)
            .param("item_ids", NamedItems::itemIds)
            .param("revisions", NamedItems::revisions)
            .sql("""
                    INSERT INTO release_item (generation_id, release_id, item_id, revision)
                    SELECT :generation, named.release_id, named.item_id, named.revision
                      FROM unnest(:release_ids::text[], :item_ids::text[], :revisions::int[])
                           AS named(release_id, item_id, revision)
                    """)
            .build();
    private static final BoundSql<Ids> DELETE_PUBLIC = BoundSql.<Ids>builder()
            .param("generation", Ids::generation)
            .param("item_ids", Ids::ids)
            .sql("""
                    DELETE FROM public_item p USING unnest(:item_ids::text[]) AS q(item_id)
                     WHERE p.generation_id = :generation AND p.item_id = q.item_id
                    """)
            .build();
    /**
     * The public-view rule for a whole generation in one query. The latest PUBLIC release's row per item is chosen
     * first and the search document computed after, once per public item rather than once per candidate.
     */
    private static final BoundSql<Long> REBUILD_PUBLIC = BoundSql.<Long>builder()
            .param("generation", g -> g)
            .sql("""
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
                     WHERE ri.generation_id = :generation
                       AND r.visibility = 'PUBLIC' AND NOT i.deleted AND NOT ar.deleted
                     ORDER BY ri.item_id, r.epoch DESC, r.position DESC) latest
            """)
            .build();
    /**
     * The public-view rule for the given items, driven by the id list: every row is found by a primary-key (or
     * {@code release_item_by_item}) probe per id, so the cost follows the number of ids and not the size of the
     * generation, whatever the table statistics say (a live generation starts empty and is not analyzed before its
     * tables grow; with the planner's join order of {@link #REBUILD_PUBLIC} a page of 5000 events then read every
     * item revision of the generation).
     */
    static final BoundSql<Ids> REFRESH_PUBLIC = BoundSql.<Ids>builder()
            .param("generation", Ids::generation)
            .param("item_ids", Ids::ids)
            .sql("""
            INSERT INTO public_item (generation_id, item_id, revision, release_id, release_epoch, release_position,
                                     attributes, document)
            SELECT :generation, latest.item_id, latest.revision, latest.release_id, latest.release_epoch,
                   latest.release_position, latest.content -> 'attributes',
                   search_document(latest.content -> 'attributes', latest.item_id)
              FROM (SELECT DISTINCT ON (q.item_id)
                           q.item_id, ri.revision, ri.release_id, r.epoch AS release_epoch,
                           r.position AS release_position, ar.content
                      FROM unnest(:item_ids::text[]) AS q(item_id)
                      CROSS JOIN LATERAL (SELECT 1 FROM item i
                                           WHERE i.generation_id = :generation AND i.item_id = q.item_id
                                             AND NOT i.deleted OFFSET 0) i
                      CROSS JOIN LATERAL (SELECT ri.release_id, ri.revision FROM release_item ri
                                           WHERE ri.generation_id = :generation AND ri.item_id = q.item_id
                                          OFFSET 0) ri
                      CROSS JOIN LATERAL (SELECT r.epoch, r.position FROM release r
                                           WHERE r.generation_id = :generation AND r.release_id = ri.release_id
                                             AND r.visibility = 'PUBLIC' OFFSET 0) r
                      CROSS JOIN LATERAL (SELECT ar.content FROM aggregate_revision ar
                                           WHERE ar.generation_id = :generation AND ar.aggregate_type = 'item'
                                             AND ar.aggregate_id = q.item_id AND ar.revision = ri.revision
                                             AND NOT ar.deleted OFFSET 0) ar
                     ORDER BY q.item_id, r.epoch DESC, r.position DESC) latest
            """)
            .build();
    private static final BoundSql<Long> CLEAR_PUBLIC = BoundSql.<Long>builder()
            .param("generation", g -> g)
            .sql("DELETE FROM public_item WHERE generation_id = :generation")
            .build();

    private static final int PART_ALL_REVISIONS = 0;
    private static final int PART_INSERT_REVISIONS = 1;
    private static final int PART_UPSERT_ITEMS = 2;
    private static final int PART_INSERT_REVISIONS_UPSERT_ITEMS = 3;
    /** The texts of the four statements above for each generation, in this order (formatted once per generation). */
    private final PartitionStatements partitions = new PartitionStatements(List.of(ALL_REVISIONS.sql(),
            INSERT_REVISIONS.sql(), UPSERT_ITEMS.sql(), INSERT_REVISIONS_UPSERT_ITEMS.sql()));

    private final JdbcClient jdbc;

    ProjectionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    private static Map<String, BoundSql<Ids>> revisionsByType() {
        Map<String, BoundSql<Ids>> byType = new HashMap<>();
        for (String type : TRACKED) {
            byType.put(type, BoundSql.<Ids>builder()
                    .param("generation", Ids::generation)
                    .param("ids", Ids::ids)
                    .sql("""
                            SELECT %1$s_id AS id, revision FROM %1$s
                             WHERE generation_id = :generation AND %1$s_id = ANY(:ids)
                            """.formatted(type))
                    .build());
        }
        return Map.copyOf(byType);
    }

    private static BoundSql<Lookup> allRevisions() {
        BoundSql.Builder<Lookup> b = BoundSql.<Lookup>builder().param("generation", Lookup::generation);
        for (int kind = 0; kind < TRACKED.size(); kind++) {
            String type = TRACKED.get(kind);
            b.param(type + "_ids", l -> l.ids(type))
                    .sql((kind == 0 ? "" : "UNION ALL\n") + """
                            SELECT %2$d AS kind, %1$s_id AS id, revision FROM %1$s%3$s
                             WHERE generation_id = :generation AND %1$s_id = ANY(:%1$s_ids)
                            """.formatted(type, kind, PartitionStatements.PARTITION));
        }
        return b.build();
    }

    /** The columns of a mapping's, policy's or release's current rows, the id named {@code idColumn}. */
    private static UnnestColumns<Current> currentColumns(String idColumn) {
        return UnnestColumns.of(Current.class, "r")
                .text(idColumn, Current::id)
                .ints("revision", Current::revision)
                .jsonTexts("content", Current::contentJson)
                .bigints("epoch", Current::epoch)
                .bigints("position", Current::position);
    }

    /**
     * @return whether this repository keeps revisions of {@code aggregateType}; static, because the apply asks
     *         several times per event and a call on the repository bean goes through its proxy
     */
    static boolean tracks(String aggregateType) {
        return REVISIONS.containsKey(aggregateType);
    }

    /** Current revision of each of {@code ids} that exists (deleted items included). */
    Map<String, Integer> revisions(long generation, String aggregateType, Collection<String> ids) {
        BoundSql<Ids> st = REVISIONS.get(aggregateType);
        return jdbc.sql(st.sql()).params(st.params(new Ids(generation, ids.toArray(String[]::new)))).query(rs -> {
            Map<String, Integer> out = new HashMap<>();
            ResultColumns.Rows row = REVISION_ROWS.in(rs);
            while (row.next()) {
                out.put(row.getString("id"), row.getInt("revision"));
            }
            return out;
        });
    }

    /** Like {@link #revisions(long, String, Collection)} for several tracked types, in one query. */
    Map<String, Map<String, Integer>> revisions(long generation, Map<String, ? extends Collection<String>> idsByType) {
        Map<String, Map<String, Integer>> out = new HashMap<>();
        List<Map<String, Integer>> byKind = new ArrayList<>(TRACKED.size());
        for (String type : TRACKED) {
            Map<String, Integer> found = new HashMap<>();
            out.put(type, found);
            byKind.add(found);
        }
        jdbc.sql(partitions.get(PART_ALL_REVISIONS, generation))
                .params(ALL_REVISIONS.params(new Lookup(generation, idsByType))).query(rs -> {
                    ResultColumns.Rows row = KIND_REVISION_ROWS.in(rs);
                    while (row.next()) {
                        byKind.get(row.getInt("kind")).put(row.getString("id"), row.getInt("revision"));
                    }
                    return out;
                });
        return out;
    }

    private void insertRevisions(long generation, List<Revision> revisions) {
        jdbc.sql(partitions.get(PART_INSERT_REVISIONS, generation))
                .params(INSERT_REVISIONS.params(new Batch(generation, revisions, List.of()))).update();
    }

    /** Upserts current item rows, at most one per item. @return the items whose row was a deletion before */
    private List<String> upsertItems(long generation, Collection<Current> items) {
        if (items.isEmpty()) {
            return List.of();
        }
        return jdbc.sql(partitions.get(PART_UPSERT_ITEMS, generation))
                .params(UPSERT_ITEMS.params(new Batch(generation, List.of(), items)))
                .query(ProjectionRepository::itemIds);
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
        return jdbc.sql(partitions.get(PART_INSERT_REVISIONS_UPSERT_ITEMS, generation))
                .params(INSERT_REVISIONS_UPSERT_ITEMS.params(new Batch(generation, revisions, items)))
                .query(ProjectionRepository::itemIds);
    }

    void upsertMappings(long generation, Collection<Current> mappings) {
        upsert(UPSERT_MAPPINGS, generation, mappings);
    }

    void upsertPolicies(long generation, Collection<Current> policies) {
        upsert(UPSERT_POLICIES, generation, policies);
    }

    void upsertReleases(long generation, Collection<Current> releases) {
        upsert(UPSERT_RELEASES, generation, releases);
    }

    private void upsert(BoundSql<Batch> st, long generation, Collection<Current> rows) {
        if (!rows.isEmpty()) {
            jdbc.sql(st.sql()).params(st.params(new Batch(generation, List.of(), rows))).update();
        }
    }

    /** Replaces the item revisions each given release names. @return the items they named before */
    List<String> replaceReleaseItems(long generation, Map<String, Map<String, Integer>> namedByRelease) {
        if (namedByRelease.isEmpty()) {
            return List.of();
        }
        Ids releases = new Ids(generation, namedByRelease.keySet().toArray(String[]::new));
        List<String> before = jdbc.sql(DELETE_RELEASE_ITEMS.sql()).params(DELETE_RELEASE_ITEMS.params(releases))
                .query(ProjectionRepository::itemIds);
        int n = namedByRelease.values().stream().mapToInt(Map::size).sum();
        if (n > 0) {
            String[] releaseIds = new String[n];
            String[] itemIds = new String[n];
            int[] revisions = new int[n];
            int i = 0;
            for (Map.Entry<String, Map<String, Integer>> release : namedByRelease.entrySet()) {
                for (Map.Entry<String, Integer> named : release.getValue().entrySet()) {
                    releaseIds[i] = release.getKey();
                    itemIds[i] = named.getKey();
                    revisions[i++] = named.getValue();
                }
            }
            jdbc.sql(INSERT_RELEASE_ITEMS.sql())
                    .params(INSERT_RELEASE_ITEMS.params(new NamedItems(generation, releaseIds, itemIds, revisions)))
                    .update();
        }
        return before;
    }

    /** Recomputes the public view (and search document) of the given items from the copied accepted state. */
    void refreshPublic(long generation, Collection<String> itemIds) {
        if (itemIds.isEmpty()) {
            return;
        }
        Ids items = new Ids(generation, itemIds.toArray(String[]::new));
        jdbc.sql(DELETE_PUBLIC.sql()).params(DELETE_PUBLIC.params(items)).update();
        jdbc.sql(REFRESH_PUBLIC.sql()).params(REFRESH_PUBLIC.params(items)).update();
    }

    /** Recomputes the whole public view of a generation, e.g. after a bulk load. */
    void rebuildPublic(long generation) {
        jdbc.sql(CLEAR_PUBLIC.sql()).params(CLEAR_PUBLIC.params(generation)).update();
        jdbc.sql(REBUILD_PUBLIC.sql()).params(REBUILD_PUBLIC.params(generation)).update();
    }

    private static List<String> itemIds(ResultSet rs) throws SQLException {
        List<String> ids = new ArrayList<>();
        ResultColumns.Rows row = ITEM_ID_ROWS.in(rs);
        while (row.next()) {
            ids.add(row.getString("item_id"));
        }
        return ids;
    }

    /** The parameters of a statement on some aggregates of a generation, by id. */
    record Ids(long generation, String[] ids) {
    }

    /** The parameters of {@link #ALL_REVISIONS}: per tracked type, the ids to read the current revision of. */
    record Lookup(long generation, Map<String, ? extends Collection<String>> idsByType) {

        String[] ids(String type) {
            Collection<String> ids = idsByType.get(type);
            return ids == null ? new String[0] : ids.toArray(String[]::new);
        }
    }

    /**
     * The parameters of the write statements: revision rows and current rows (items, or the mappings, policies or
     * releases of {@link #upsert}) of one generation.
     */
    record Batch(long generation, List<Revision> revisions, Collection<Current> rows) {

        /** The current rows' ids, for the item upsert's look-up of previously deleted items. */
        String[] ids() {
            String[] ids = new String[rows.size()];
            int i = 0;
            for (Current r : rows) {
                ids[i++] = r.id();
            }
            return ids;
        }
    }

    /** The parameters of {@link #INSERT_RELEASE_ITEMS}: the named item revisions as one array per column. */
    record NamedItems(long generation, String[] releaseIds, String[] itemIds, int[] revisions) {
    }
}
