package com.acme.catalog.resolver.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A statement assembled from pieces, each piece's text together with the values of its own {@code ?} parameters,
 * so the parameters follow the text by construction: a piece with more or fewer values than placeholders does not
 * build, and pieces included from another class ({@link CursorRepository#LOCK_OPEN}) bring their parameters along.
 * Built once into a constant; {@link #params} is the only per-call work.
 *
 * @param <A> what one execution's parameter values are taken from
 */
final class BoundSql<A> {

    private final String sql;
    private final List<Function<? super A, ?>> values;

    private BoundSql(String sql, List<Function<? super A, ?>> values) {
        this.sql = sql;
        this.values = List.copyOf(values);
    }

    static <A> Builder<A> builder() {
        return new Builder<>();
    }

    /** The statement text PostgreSQL receives. */
    String sql() {
        return sql;
    }

    /** How many {@code ?} the text holds, which is how many values {@link #params} answers. */
    int parameterCount() {
        return values.size();
    }

    /** Every parameter value, in the order of the text's placeholders. */
    Object[] params(A args) {
        Object[] out = new Object[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i).apply(args);
        }
        return out;
    }

    static final class Builder<A> {

        private final StringBuilder sql = new StringBuilder();
        private final List<Function<? super A, ?>> values = new ArrayList<>();

        private Builder() {
        }

        /**
         * Appends text and the values of its placeholders, one per {@code ?} of the text, in order.
         *
         * @throws IllegalArgumentException when the number of values is not the number of placeholders
         */
        @SafeVarargs
        final Builder<A> sql(String text, Function<? super A, ?>... placeholderValues) {
            long placeholders = text.chars().filter(c -> c == '?').count();
            if (placeholders != placeholderValues.length) {
                throw new IllegalArgumentException(placeholders + " placeholders but " + placeholderValues.length
                        + " values in: " + text);
            }
            sql.append(text);
            values.addAll(List.of(placeholderValues));
            return this;
        }

        /** Appends {@code unnest(…) AS u(…)} of the columns and one array parameter per column, in column order. */
        <R> Builder<A> unnest(Function<? super A, ? extends List<R>> rows, UnnestColumns<R> columns) {
            sql.append(columns.sql());
            for (UnnestColumns.Column<R> c : columns.columns()) {
                values.add(a -> c.array(rows.apply(a)));
            }
            return this;
        }

        /** Appends another statement's text (stripped) and its parameters, their values taken from {@code arg}. */
        <B> Builder<A> include(BoundSql<B> piece, Function<? super A, ? extends B> arg) {
            sql.append(piece.sql.strip());
            for (Function<? super B, ?> v : piece.values) {
                values.add(a -> v.apply(arg.apply(a)));
            }
            return this;
        }

        BoundSql<A> build() {
            return new BoundSql<>(sql.toString(), values);
        }
    }
}
