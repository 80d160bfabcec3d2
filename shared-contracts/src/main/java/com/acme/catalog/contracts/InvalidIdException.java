package com.acme.catalog.contracts;

/** An identifier outside its contract pattern; answered as 400 {@code INVALID_ID}. */
public class InvalidIdException extends IllegalArgumentException {

    public InvalidIdException(String what, String value, String rule) {
        super("%s '%s' %s".formatted(what, value == null ? "" : abbreviate(value), rule));
    }

    private static String abbreviate(String v) {
        return v.length() > 80 ? v.substring(0, 80) + "…" : v;
    }
}
