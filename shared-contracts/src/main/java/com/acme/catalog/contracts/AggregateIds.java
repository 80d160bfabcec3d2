package com.acme.catalog.contracts;

/** Validation of item, mapping, policy and release ids: 1–128 chars of {@code [A-Za-z0-9._:-]}. */
public final class AggregateIds {

    private AggregateIds() {
    }

    public static String require(String what, String value) {
        if (!isId(value)) {
            throw new InvalidIdException(what, value, "must be 1-128 characters of [A-Za-z0-9._:-]");
        }
        return value;
    }

    /** True when {@code value} matches {@code [A-Za-z0-9._:-]{1,128}} (a loop: every change in a write is checked). */
    public static boolean isId(String value) {
        if (value == null || value.isEmpty() || value.length() > 128) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                    || c == ':' || c == '-')) {
                return false;
            }
        }
        return true;
    }
}
