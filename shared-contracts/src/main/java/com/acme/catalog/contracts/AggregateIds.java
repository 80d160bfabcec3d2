package com.acme.catalog.contracts;

import java.util.regex.Pattern;

/** Validation of item, mapping, policy and release ids: 1–128 chars of {@code [A-Za-z0-9._:-]}. */
public final class AggregateIds {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private AggregateIds() {
    }

    public static String require(String what, String value) {
        if (value == null || !ID.matcher(value).matches()) {
            throw new InvalidIdException(what, value, "must be 1-128 characters of [A-Za-z0-9._:-]");
        }
        return value;
    }
}
