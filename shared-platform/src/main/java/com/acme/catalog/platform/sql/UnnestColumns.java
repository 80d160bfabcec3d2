package com.acme.catalog.platform.sql;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The columns of one {@code unnest(…) AS u(…)} row source, each with its SQL type and how its array is taken from
 * the rows, so the n-th array parameter is always the n-th column: adding, removing or reordering a column changes
 * the text and the parameters together. Rows travel as one array per column; JSON texts as one text joined with
 * U+001E ({@link JsonTexts#join}), split by {@code string_to_array}. Used through {@link BoundSql.Builder#unnest}.
 *
 * @param <R> the row type
 */
public final class UnnestColumns<R> {

    private final String alias;
    private final List<Column<R>> columns = new ArrayList<>();

    private UnnestColumns(String alias) {
        this.alias = alias;
    }

    /** Columns of rows of {@code rowType}, named {@code u.<column>} in the statement. */
    public static <R> UnnestColumns<R> of(Class<R> rowType) {
        return new UnnestColumns<>("u");
    }

    /** Columns of rows of {@code rowType}, named {@code <alias>.<column>} in the statement. */
    public static <R> UnnestColumns<R> of(Class<R> rowType, String alias) {
        return new UnnestColumns<>(alias);
    }

    public UnnestColumns<R> text(String name, Function<? super R, String> value) {
        return add(name, "?::text[]", rows -> {
            String[] a = new String[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r);
            }
            return a;
        });
    }

    public UnnestColumns<R> ints(String name, ToIntFunction<? super R> value) {
        return add(name, "?::int[]", rows -> {
            int[] a = new int[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.applyAsInt(r);
            }
            return a;
        });
    }

    /** Integers that may be null (SQL NULL elements). */
    public UnnestColumns<R> nullableInts(String name, Function<? super R, Integer> value) {
        return add(name, "?::int[]", rows -> {
            Integer[] a = new Integer[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r);
            }
            return a;
        });
    }

    public UnnestColumns<R> bigints(String name, ToLongFunction<? super R> value) {
        return add(name, "?::bigint[]", rows -> {
            long[] a = new long[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.applyAsLong(r);
            }
            return a;
        });
    }

    /** Longs that may be null (SQL NULL elements). */
    public UnnestColumns<R> nullableBigints(String name, Function<? super R, Long> value) {
        return add(name, "?::bigint[]", rows -> {
            Long[] a = new Long[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r);
            }
            return a;
        });
    }

    public UnnestColumns<R> flags(String name, Predicate<? super R> value) {
        return add(name, "?::boolean[]", rows -> {
            boolean[] a = new boolean[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.test(r);
            }
            return a;
        });
    }

    public UnnestColumns<R> uuids(String name, Function<? super R, UUID> value) {
        return add(name, "?::uuid[]", rows -> {
            String[] a = new String[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r).toString();
            }
            return a;
        });
    }

    public UnnestColumns<R> timestamps(String name, Function<? super R, Instant> value) {
        return add(name, "?::timestamptz[]", rows -> {
            String[] a = new String[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r).toString();
            }
            return a;
        });
    }

    /** JSON texts (text in SQL; cast where they are used), sent as one separated text. */
    public UnnestColumns<R> jsonTexts(String name, Function<? super R, String> value) {
        return add(name, "string_to_array(?, chr(30))", rows -> {
            String[] a = new String[rows.size()];
            int i = 0;
            for (R r : rows) {
                a[i++] = value.apply(r);
            }
            return JsonTexts.join(a);
        });
    }

    /** {@code unnest(<one placeholder per column>) AS <alias>(<column names>)}. */
    public String sql() {
        StringBuilder types = new StringBuilder("unnest(");
        StringBuilder names = new StringBuilder(" AS ").append(alias).append('(');
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) {
                types.append(", ");
                names.append(", ");
            }
            types.append(columns.get(i).placeholder());
            names.append(columns.get(i).name());
        }
        return types.append(')').append(names).append(')').toString();
    }

    List<Column<R>> columns() {
        return List.copyOf(columns);
    }

    private UnnestColumns<R> add(String name, String placeholder, Function<Collection<? extends R>, Object> array) {
        columns.add(new Column<>(name, placeholder, array));
        return this;
    }

    /** One column: its name in {@code u(…)}, its placeholder, and its array (or joined text) from the rows. */
    record Column<R>(String name, String placeholder, Function<Collection<? extends R>, Object> arrayOf) {

        Object array(Collection<? extends R> rows) {
            return arrayOf.apply(rows);
        }
    }
}
