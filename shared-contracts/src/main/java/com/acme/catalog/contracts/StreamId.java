package com.acme.catalog.contracts;

/** One (tenant, catalog) pair: the unit of ordering. Both parts match {@code [a-z0-9][a-z0-9-]{0,62}}. */
public record StreamId(String tenant, String catalog) {

    public StreamId {
        requirePart("tenant", tenant);
        requirePart("catalog", catalog);
    }

    public static void requirePart(String what, String value) {
        if (!isPart(value)) {
            throw new InvalidIdException(what, value, "must match [a-z0-9][a-z0-9-]{0,62}");
        }
    }

    /**
     * True when {@code value} matches {@code [a-z0-9][a-z0-9-]{0,62}}; a loop, not a regex, because every request
     * checks its stream (a regex match was a few percent of a write's CPU).
     */
    public static boolean isPart(String value) {
        if (value == null || value.isEmpty() || value.length() > 63 || value.charAt(0) == '-') {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return tenant + "/" + catalog;
    }
}
