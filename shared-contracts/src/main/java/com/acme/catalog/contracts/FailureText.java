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

    /**
     * @return what {@code failure} says, from its own message and its innermost cause's (a wrapper's message often
     *         names only the call, its root cause what went wrong), without class names, at most {@code maxLength}
     *         characters (then "…"); {@code noMessage} when neither says anything
     */
    public static String detail(Throwable failure, int maxLength, String noMessage) {
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
            root = root.getCause();
        }
        String top = clean(failure.getMessage());
        String inner = root == failure ? "" : clean(root.getMessage());
        String out;
        if (top.isEmpty()) {
            out = inner;
        } else if (inner.isEmpty() || top.contains(inner)) {
            out = top;
        } else {
            out = top + ": " + inner;
        }
        if (out.isEmpty()) {
            out = noMessage;
        }
        return out.length() > maxLength ? out.substring(0, maxLength) + "…" : out;
    }
}
