package com.acme.catalog.product.projection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.product.projection.ProjectionBatch.Current;
import com.acme.catalog.product.projection.ProjectionBatch.Revision;
import com.acme.catalog.product.projection.ProjectionRepository.Batch;

import org.junit.jupiter.api.Test;

/**
 * The projection's statements as {@link BoundSql} assembles them: each named parameter is sent at every place its
 * name stands, in the order the hand-written positional parameters had, and the combined revision-and-item write is
 * the two statements it combines, parameters included.
 */
class ProjectionStatementsTest {

    private static final UUID E = UUID.fromString("0193a000-0000-7000-8000-000000000001");
    private static final Batch BATCH = new Batch(12,
            List.of(new Revision(new AggregateRevision("item", "sku-1", 2), "{\"attributes\":{}}", false, 1, 5, E)),
            List.of(new Current("sku-1", 2, 1, 5, "{\"attributes\":{}}", false),
                    new Current("sku-2", 1, 1, 6, "{\"attributes\":{\"a\":1}}", true)));

    @Test
    void everyPlaceholderHasItsValue() {
        for (BoundSql<?> st : List.of(ProjectionRepository.ALL_REVISIONS, ProjectionRepository.INSERT_REVISIONS,
                ProjectionRepository.UPSERT_ITEMS, ProjectionRepository.INSERT_REVISIONS_UPSERT_ITEMS,
                ProjectionRepository.REFRESH_PUBLIC)) {
            assertThat(st.parameterCount()).isEqualTo(st.sql().chars().filter(c -> c == '?').count());
            assertThat(st.sql()).doesNotContainPattern("(?<!:):[a-z]");
        }
    }

    @Test
    void theGenerationIsSentWhereverTheRefreshNamesIt() {
        String[] ids = {"sku-1", "sku-2"};
        assertThat(ProjectionRepository.REFRESH_PUBLIC.params(new ProjectionRepository.Ids(12, ids)))
                .containsExactly(12L, ids, 12L, 12L, 12L, 12L);
    }

    @Test
    void eachRevisionBranchAsksItsOwnTypesIdsFromItsOwnPartitionAndSaysWhichKindItIs() {
        List<String> tracked = AggregateType.acceptedStateNames();
        Object[] params = ProjectionRepository.ALL_REVISIONS.params(new ProjectionRepository.Lookup(12,
                Map.of("item", Set.of("sku-1"), "release", Set.of("r-1"))));
        assertThat(params).hasSize(2 * tracked.size());
        String[] branches = ProjectionRepository.ALL_REVISIONS.sql().split("UNION ALL");
        for (int kind = 0; kind < tracked.size(); kind++) {
            String type = tracked.get(kind);
            assertThat(branches[kind]).contains("SELECT " + kind + " AS kind, " + type + "_id AS id, revision FROM "
                    + type + PartitionStatements.PARTITION + "\n");
            assertThat(params[2 * kind]).isEqualTo(12L);
        }
        assertThat(params).containsExactly(12L, new String[] {"sku-1"}, 12L, new String[0], 12L, new String[0], 12L,
                new String[] {"r-1"});
    }

    @Test
    void theItemUpsertLooksUpTheItemsItWrites() {
        Object[] params = ProjectionRepository.UPSERT_ITEMS.params(BATCH);
        assertThat(params[0]).isEqualTo(12L);
        assertThat(params[1]).isEqualTo(new String[] {"sku-1", "sku-2"});
        assertThat(params[2]).isEqualTo(12L);
        assertThat(params[3]).isEqualTo(new String[] {"sku-1", "sku-2"});
        assertThat(params[5]).isEqualTo("{\"attributes\":{}}\u001e{\"attributes\":{\"a\":1}}");
        assertThat(params[6]).isEqualTo(new boolean[] {false, true});
    }

    @Test
    void theCombinedWriteIsBothStatementsWithTheirParameters() {
        String revisions = ProjectionRepository.INSERT_REVISIONS.sql().strip();
        String items = ProjectionRepository.UPSERT_ITEMS.sql().strip();
        assertThat(items).startsWith("WITH previous AS (");
        assertThat(normalized(ProjectionRepository.INSERT_REVISIONS_UPSERT_ITEMS.sql())).isEqualTo(
                normalized("WITH revisions AS (\n" + revisions + "\n), " + items.substring("WITH ".length())));
        Object[] r = ProjectionRepository.INSERT_REVISIONS.params(BATCH);
        Object[] i = ProjectionRepository.UPSERT_ITEMS.params(BATCH);
        Object[] both = Arrays.copyOf(r, r.length + i.length);
        System.arraycopy(i, 0, both, r.length, i.length);
        assertThat(Arrays.deepEquals(ProjectionRepository.INSERT_REVISIONS_UPSERT_ITEMS.params(BATCH), both))
                .isTrue();
    }

    private static String normalized(String sql) {
        return sql.strip().replaceAll("\\s+", " ");
    }
}
