package com.acme.catalog.contracts;

import java.util.UUID;

/** Ids that are UUIDs in their canonical 36-character form (artifacts, runs, claims, cases, decisions). */
public final class UuidIds {

    private UuidIds() {
    }

    /** @throws InvalidIdException (400 {@code INVALID_ID}) for anything but a canonical UUID */
    public static UUID parse(String what, String value) {
        if (value == null || value.length() != 36) {
            throw new InvalidIdException(what, value, "must be a UUID (8-4-4-4-12 hex digits)");
        }
        for (int i = 0; i < 36; i++) {
            char c = value.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            boolean ok = dash ? c == '-' : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!ok) {
                throw new InvalidIdException(what, value, "must be a UUID (8-4-4-4-12 hex digits)");
            }
        }
        return UUID.fromString(value);
    }
}
