package com.acme.catalog.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class UnnestColumnsTest {

    record Row(String id, int n, Integer maybe, long big, boolean flag, UUID uuid, Instant at, String json) {
    }

    private static final UUID U1 = UUID.fromString("0193a000-0000-7000-8000-000000000001");
    private static final UUID U2 = UUID.fromString("0193a000-0000-7000-8000-000000000002");
    private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

    private static final UnnestColumns<Row> COLUMNS = UnnestColumns.of(Row.class)
            .text("id", Row::id)
            .ints("n", Row::n)
            .nullableInts("maybe", Row::maybe)
            .bigints("big", Row::big)
            .flags("flag", Row::flag)
            .uuids("uuid", Row::uuid)
            .timestamps("at", Row::at)
            .jsonTexts("json", Row::json);

    @Test
    void textNamesEveryColumnInOrderWithItsType() {
        assertThat(COLUMNS.sql()).isEqualTo("unnest(?::text[], ?::int[], ?::int[], ?::bigint[], ?::boolean[], "
                + "?::uuid[], ?::timestamptz[], string_to_array(?, chr(30))) "
                + "AS u(id, n, maybe, big, flag, uuid, at, json)");
        assertThat(UnnestColumns.of(Row.class, "q").text("id", Row::id).sql()).isEqualTo("unnest(?::text[]) AS q(id)");
    }

    @Test
    void eachColumnIsOneArrayOfTheRowsInTheirOrderFromAnyCollection() {
        Map<String, Row> byId = new LinkedHashMap<>();
        byId.put("b", new Row("b", 2, null, 20L, true, U2, T, "{\"b\":2}"));
        byId.put("a", new Row("a", 1, 5, 10L, false, U1, T, "[]"));
        List<Object> arrays = COLUMNS.columns().stream().map(c -> c.array(byId.values())).toList();
        assertThat(arrays).containsExactly(new String[] {"b", "a"}, new int[] {2, 1}, new Integer[] {null, 5},
                new long[] {20, 10}, new boolean[] {true, false}, new String[] {U2.toString(), U1.toString()},
                new String[] {T.toString(), T.toString()}, "{\"b\":2}\u001e[]");
    }

    @Test
    void noRowsAreEmptyArrays() {
        List<Object> arrays = COLUMNS.columns().stream().map(c -> c.array(List.of())).toList();
        assertThat(arrays).containsExactly(new String[0], new int[0], new Integer[0], new long[0], new boolean[0],
                new String[0], new String[0], "");
    }
}
