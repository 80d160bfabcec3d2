package com.acme.catalog.contracts;

import java.util.regex.Pattern;

/** One (tenant, catalog) pair: the unit of ordering. Both parts match {@code [a-z0-9][a-z0-9-]{0,62}}. */
public record StreamId(String tenant, String catalog) {

    private static final Pattern PART = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    public StreamId {
        requirePart("tenant", tenant);
        requirePart("catalog", catalog);
    }

    public static void requirePart(String what, String value) {
        if (value == null || !PART.matcher(value).matches()) {
            throw new InvalidIdException(what, value, "must match [a-z0-9][a-z0-9-]{0,62}");
        }
    }

    @Override
    public String toString() {
        return tenant + "/" + catalog;
    }
}
