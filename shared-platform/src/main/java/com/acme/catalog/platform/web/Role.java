package com.acme.catalog.platform.web;

import java.util.Locale;

/** Roles a bearer token may carry. */
public enum Role {
    OPERATOR, WRITER, RELAY, CONSUMER;

    public static Role parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown role '" + s.trim() + "' (operator, writer, relay, consumer)");
        }
    }

    public String authority() {
        return "ROLE_" + name();
    }
}
