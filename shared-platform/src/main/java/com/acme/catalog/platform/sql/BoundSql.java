package com.acme.catalog.platform.sql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A statement assembled from pieces, each piece's text together with the values of its own parameters, so the
 * parameters follow the text by construction: a piece with more or fewer values than placeholders does not build,
 * and pieces included from another statement ({@link Builder#include}) bring their parameters along. A piece names
 * its parameters either by position ({@code ?}, one value per placeholder, in order) or by name ({@code :name},
 * bound once with {@link Builder#param} and usable any number of times); either way {@link #sql} holds only
 * {@code ?}, so the statement runs as a plain prepared statement. Built once into a constant; {@link #params} is the
 * only per-call work.
 *
 * @param <A> what one execution's parameter values are taken from
 */
public final class BoundSql<A> {

    private final String sql;
    private final List<Function<? super A, ?>> values;

    private BoundSql(String sql, List<Function<? super A, ?>> values) {
        this.sql = sql;
        this.values = List.copyOf(values);
    }

    public static <A> Builder<A> builder() {
        return new Builder<>();
    }

    /** The statement text PostgreSQL receives: every parameter a {@code ?}. */
    public String sql() {
        return sql;
    }

    /** How many {@code ?} the text holds, which is how many values {@link #params} answers. */
    public int parameterCount() {
        return values.size();
    }

    /**
     * Every parameter value, in the order of the text's placeholders. A named parameter's value is taken once per
     * place it is used, so bind names to accessors rather than to computations.
     */
    public Object[] params(A args) {
        Object[] out = new Object[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i).apply(args);
        }
        return out;
    }

    /** Assembles a {@link BoundSql}; not thread-safe, meant for building a constant. */
    public static final class Builder<A> {

        private final StringBuilder sql = new StringBuilder();
        private final List<Function<? super A, ?>> values = new ArrayList<>();
        private final Map<String, Function<? super A, ?>> named = new HashMap<>();
        private final Set<String> used = new HashSet<>();

        private Builder() {
        }

        /**
         * Binds {@code :name} for the text appended after this call.
         *
         * @throws IllegalArgumentException when the name is not an SQL identifier or is bound already
         */
        public Builder<A> param(String name, Function<? super A, ?> value) {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("not a parameter name: " + name);
            }
            if (named.putIfAbsent(name, value) != null) {
                throw new IllegalArgumentException("parameter :" + name + " is bound twice");
            }
            return this;
        }

        /**
         * Appends text and the values of its placeholders: one value per {@code ?} of the text, in order, or none
         * when the text names its parameters ({@code :name}, each bound by {@link #param} before). A {@code ?} or
         * {@code :} inside a quoted literal, a quoted identifier or a comment is text, and so is a {@code ::} cast.
         *
         * @throws IllegalArgumentException when the number of values is not the number of {@code ?}, when the text
         *                                  uses both kinds of placeholder, or names a parameter that is not bound
         */
        @SafeVarargs
        public final Builder<A> sql(String text, Function<? super A, ?>... placeholderValues) {
            Placeholders p = Placeholders.scan(text);
            if (!p.names().isEmpty() && p.positional() > 0) {
                throw new IllegalArgumentException("both ? and :name placeholders in: " + text);
            }
            if (p.positional() != placeholderValues.length) {
                throw new IllegalArgumentException(p.positional() + " placeholders but " + placeholderValues.length
                        + " values in: " + text);
            }
            List<Function<? super A, ?>> pieceValues = new ArrayList<>(List.of(placeholderValues));
            for (String name : p.names()) {
                Function<? super A, ?> value = named.get(name);
                if (value == null) {
                    throw new IllegalArgumentException("parameter :" + name + " is not bound, in: " + text);
                }
                pieceValues.add(value);
                used.add(name);
            }
            sql.append(p.text());
            values.addAll(pieceValues);
            return this;
        }

        /** Appends {@code unnest(…) AS alias(…)} of the columns and one parameter per column, in column order. */
        public <R> Builder<A> unnest(Function<? super A, ? extends Collection<? extends R>> rows,
                UnnestColumns<R> columns) {
            sql.append(columns.sql());
            for (UnnestColumns.Column<R> c : columns.columns()) {
                values.add(a -> c.array(rows.apply(a)));
            }
            return this;
        }

        /** Appends another statement's text (stripped) and its parameters, their values taken from {@code arg}. */
        public <B> Builder<A> include(BoundSql<B> piece, Function<? super A, ? extends B> arg) {
            sql.append(piece.sql.strip());
            for (Function<? super B, ?> v : piece.values) {
                values.add(a -> v.apply(arg.apply(a)));
            }
            return this;
        }

        /** @throws IllegalArgumentException when a bound name was never used (a misspelt placeholder) */
        public BoundSql<A> build() {
            Set<String> unused = new HashSet<>(named.keySet());
            unused.removeAll(used);
            if (!unused.isEmpty()) {
                throw new IllegalArgumentException("bound but not used: " + unused + ", in: " + sql);
            }
            return new BoundSql<>(sql.toString(), values);
        }
    }
}
