package com.acme.catalog.contracts;

import java.util.regex.Pattern;

/**
 * What an operator-facing field may say about a failure: a stable code and a sentence, never a Java exception's class
 * name ({@code error} of a rebuild, the recovery worker's reason, an evidence run's summary). This is the one place
 * that strips class names from an exception's message.
 */
public final class FailureText {

    /** A fully qualified Java name ({@code java.net.ConnectException}, {@code org.postgresql.util.PSQLException}). */
    private static final Pattern QUALIFIED = Pattern.compile(
            "\\b(?:java|javax|jakarta|sun|jdk|org|com|tools|io|reactor)(?:\\.[A-Za-z_$][\\w$]*)+:?\\s*");
    /** A simple exception or error class name ({@code SocketTimeoutException:}). */
    private static final Pattern SIMPLE = Pattern.compile("\\b[A-Z][\\w$]*(?:Exception|Error)\\b:?\\s*");

    private FailureText() {
    }

    /** @return {@code message} without Java class names (qualified or simple exception names), trimmed; never null */
    public static String clean(String message) {
        if (message == null) {
            return "";
        }
        String out = QUALIFIED.matcher(message).replaceAll("");
        out = SIMPLE.matcher(out).replaceAll("");
        return out.strip();
    }
}
