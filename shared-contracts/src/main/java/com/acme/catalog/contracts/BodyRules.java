package com.acme.catalog.contracts;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the compact constructors of request records make; each failure is 400 {@code INVALID_BODY} naming the
 * field, so a record that exists is valid.
 */
public final class BodyRules {

    private BodyRules() {
    }

    /** @return {@code value}, a string of 1 to {@code max} characters */
    public static String text(String field, String value, int max) {
        if (value == null || value.isBlank() || value.length() > max) {
            throw invalid(field + " must be a non-blank string of at most " + max + " characters");
        }
        return value;
    }

    /** @return an unmodifiable copy of {@code values}: present, between {@code min} and {@code max} elements */
    public static <T> List<T> list(String field, List<T> values, int min, int max) {
        if (values == null || values.size() < min || values.size() > max) {
            throw invalid(field + " must be an array of " + min + " to " + max + " elements");
        }
        for (T v : values) {
            if (v == null) {
                throw invalid(field + " must not hold null elements");
            }
        }
        return List.copyOf(values);
    }

    /** @return {@code values} as {@link #list}, refusing the same element twice */
    public static <T> List<T> distinctList(String field, List<T> values, int min, int max) {
        List<T> copy = list(field, values, min, max);
        Set<T> seen = new HashSet<>();
        for (T v : copy) {
            if (!seen.add(v)) {
                throw invalid(field + " names " + v + " twice");
            }
        }
        return copy;
    }

    /** @return {@code value}, which must be present */
    public static <T> T present(String field, T value) {
        if (value == null) {
            throw invalid(field + " is required");
        }
        return value;
    }

    public static ApiException invalid(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }
}
