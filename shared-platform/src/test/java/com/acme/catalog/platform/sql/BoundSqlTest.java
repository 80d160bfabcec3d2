package com.acme.catalog.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class BoundSqlTest {

    record Args(long generation, String[] ids, List<Row> rows) {
    }

    record Row(String id, int revision) {
    }

    private static final Args ARGS = new Args(7, new String[] {"a", "b"},
            List.of(new Row("a", 1), new Row("b", 2)));

    @Test
    void positionalValuesFollowTheirPlaceholders() {
        BoundSql<Args> st = BoundSql.<Args>builder()
                .sql("SELECT x FROM t WHERE g = ? AND id = ANY(?)", Args::generation, Args::ids)
                .build();
        assertThat(st.sql()).isEqualTo("SELECT x FROM t WHERE g = ? AND id = ANY(?)");
        assertThat(st.params(ARGS)).containsExactly(7L, ARGS.ids());
    }

    @Test
    void aNamedParameterIsBoundOnceAndSentAtEveryPlaceItIsUsed() {
        BoundSql<Args> st = BoundSql.<Args>builder()
                .param("generation", Args::generation)
                .param("ids", Args::ids)
                .sql("DELETE FROM p USING unnest(:ids::text[]) AS q(id) WHERE p.g = :generation AND p.id = q.id")
                .sql(" AND EXISTS (SELECT 1 FROM r WHERE r.g = :generation)")
                .build();
        assertThat(st.sql()).isEqualTo("DELETE FROM p USING unnest(?::text[]) AS q(id) WHERE p.g = ? AND p.id = q.id"
                + " AND EXISTS (SELECT 1 FROM r WHERE r.g = ?)");
        assertThat(st.parameterCount()).isEqualTo(3);
        assertThat(st.params(ARGS)).containsExactly(ARGS.ids(), 7L, 7L);
    }

    @Test
    void castsLiteralsQuotedNamesAndCommentsHoldNoPlaceholder() {
        String text = """
                SELECT '{}'::jsonb, 'a:b ?', "we:ird?", x::text -- :not ?
                  /* :nor ? */ FROM t WHERE g = :generation
                """;
        BoundSql<Args> st = BoundSql.<Args>builder().param("generation", Args::generation).sql(text).build();
        assertThat(st.sql()).isEqualTo(text.replace(":generation", "?"));
        assertThat(st.params(ARGS)).containsExactly(7L);
    }

    @Test
    void aPieceWithMoreOrFewerValuesThanPlaceholdersDoesNotBuild() {
        assertThatThrownBy(() -> BoundSql.<Args>builder().sql("g = ? AND id = ?", Args::generation))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 placeholders but 1 values");
        assertThatThrownBy(() -> BoundSql.<Args>builder().sql("g = 1", Args::generation))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnboundMisspeltOrMixedNameDoesNotBuild() {
        assertThatThrownBy(() -> BoundSql.<Args>builder().param("generation", Args::generation).sql("g = :generaton"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":generaton is not bound");
        assertThatThrownBy(() -> BoundSql.<Args>builder().param("generation", Args::generation).sql("g = 1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bound but not used");
        assertThatThrownBy(() -> BoundSql.<Args>builder().param("generation", Args::generation)
                .sql("g = :generation AND id = ?", Args::ids))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both");
        assertThatThrownBy(() -> BoundSql.<Args>builder().param("g", Args::generation).param("g", Args::ids))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    }

    @Test
    void anIncludedPieceBringsItsParametersTakenFromTheIncludingArguments() {
        BoundSql<Long> lock = BoundSql.<Long>builder().sql("\nSELECT 1 FROM c WHERE g = ? FOR UPDATE\n", g -> g)
                .build();
        BoundSql<Args> st = BoundSql.<Args>builder()
                .include(lock, Args::generation)
                .sql(";\n")
                .param("ids", Args::ids)
                .sql("SELECT * FROM t WHERE id = ANY(:ids)")
                .build();
        assertThat(st.sql()).isEqualTo("SELECT 1 FROM c WHERE g = ? FOR UPDATE;\nSELECT * FROM t WHERE id = ANY(?)");
        assertThat(st.params(ARGS)).containsExactly(7L, ARGS.ids());
    }

    @Test
    void unnestEmitsEveryColumnWithItsArrayInColumnOrder() {
        UnnestColumns<Row> columns = UnnestColumns.of(Row.class, "r")
                .text("id", Row::id)
                .ints("revision", Row::revision);
        BoundSql<Args> st = BoundSql.<Args>builder()
                .param("generation", Args::generation)
                .sql("INSERT INTO t (g, id, revision) SELECT :generation, r.id, r.revision FROM ")
                .unnest(Args::rows, columns)
                .build();
        assertThat(st.sql()).isEqualTo("INSERT INTO t (g, id, revision) SELECT ?, r.id, r.revision FROM "
                + "unnest(?::text[], ?::int[]) AS r(id, revision)");
        assertThat(st.params(ARGS)).containsExactly(7L, new String[] {"a", "b"}, new int[] {1, 2});
    }
}
