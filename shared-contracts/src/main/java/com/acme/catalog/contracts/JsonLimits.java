package com.acme.catalog.contracts;

import java.util.Map;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;

/**
 * The one set of limits on what the resolver accepts, chosen so the product can always consume it: every event the
 * resolver stores fits the product's delivery cap and parses with the product's JSON parser (whose nesting limit,
 * {@code StreamReadConstraints} 500 by default, is far above {@link #MAX_DEPTH} plus the delivery's own levels).
 * The resolver enforces them at the door (writes, the bootstrap import) and the relay again before it sends; a
 * value past a limit is 400 {@code INVALID_BODY} and nothing is written (docs/writes.md "Limits").
 *
 * <p>Besides the limits, the text rule of every body and query: no {@code U+0000} (PostgreSQL cannot store it in
 * text or jsonb) and no unpaired UTF-16 surrogate (it has no UTF-8 encoding and would be stored as {@code ?}).
 */
public final class JsonLimits {

    /** Nesting of an item's {@code attributes} or a policy's {@code rules}: the object itself is level 1. */
    public static final int MAX_DEPTH = 32;
    /** Characters (UTF-16 units) of one string value inside attributes or rules. */
    public static final int MAX_STRING_CHARS = 65_536;
    /** Characters of one member name inside attributes or rules. */
    public static final int MAX_KEY_CHARS = 256;
    /** Members of one object inside attributes or rules (the object itself included). */
    public static final int MAX_MEMBERS = 1_000;
    /**
     * UTF-8 bytes of all string values of one item's {@code attributes} together, {@code name} counted twice: the
     * product's search document ({@code tsvector}, at most 1 MiB in PostgreSQL, about twice its input at worst) is
     * built from them and holds the name twice. Numbers, booleans and member names do not count.
     */
    public static final int MAX_TEXT_BYTES = 262_144;
    /** UTF-8 bytes of one event's stored wire (the envelope and payload the relay sends). */
    public static final int MAX_EVENT_WIRE_BYTES = 1_048_576;
    /**
     * What a delivery adds around one event's wire: {@code {"events":[}, the {@code ,"chainDigest":"…"} suffix and
     * {@code ]}}, with room to spare.
     */
    public static final int DELIVERY_FRAME_BYTES = 1_024;
    /** The product's inbox accepts deliveries of at least this size, so one event of the largest wire always fits. */
    public static final int MAX_DELIVERY_BYTES = MAX_EVENT_WIRE_BYTES + DELIVERY_FRAME_BYTES;
    /** Characters of a plain text member of a change: a mapping's {@code source} and {@code target}. */
    public static final int MAX_TEXT_MEMBER_CHARS = 4_096;
    /** Item references one release names (each counts twice in its event's wire: payload and dependencies). */
    public static final int MAX_RELEASE_ITEMS = 10_000;

    private JsonLimits() {
    }

    /**
     * Checks an {@code attributes} or {@code rules} value against every limit and the text rule.
     *
     * @throws ApiException {@code INVALID_BODY} naming {@code field} and the limit
     */
    public static void checkValue(String field, JsonNode value) {
        walk(field, value, 1, true);
    }

    /**
     * Checks an item's {@code attributes}: {@link #checkValue}, and the string text within {@link #MAX_TEXT_BYTES}.
     *
     * @throws ApiException {@code INVALID_BODY} naming the limit
     */
    public static void checkAttributes(JsonNode attributes) {
        walk("attributes", attributes, 1, true);
        long text = textBytes(attributes);
        JsonNode name = attributes.get("name");
        if (name != null && name.isString()) {
            text += utf8Length(name.stringValue());
        }
        if (text > MAX_TEXT_BYTES) {
            throw invalid("attributes hold " + text + " bytes of string text (name counted twice), over the limit "
                    + "of " + MAX_TEXT_BYTES + " bytes");
        }
    }

    private static long textBytes(JsonNode n) {
        if (n.isString()) {
            return utf8Length(n.stringValue());
        }
        long total = 0;
        if (n.isContainer()) {
            for (JsonNode c : n) {
                total += textBytes(c);
            }
        }
        return total;
    }

    /**
     * Checks the text rule on every member name and string of a whole document (any request body).
     *
     * @throws ApiException {@code INVALID_BODY} naming {@code field}
     */
    public static void checkText(String field, JsonNode document) {
        walk(field, document, 1, false);
    }

    /** @throws ApiException {@code INVALID_BODY} when {@code value} breaks the text rule */
    public static String requireCleanText(String field, String value) {
        String problem = textProblem(value);
        if (problem != null) {
            throw invalid(field + " " + problem);
        }
        return value;
    }

    /** @return what breaks the text rule in {@code s} (null when nothing does, or for null) */
    public static String textProblem(CharSequence s) {
        if (s == null) {
            return null;
        }
        return textProblem(s, 0, s.length());
    }

    private static String textProblem(CharSequence s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return "contains U+0000, which cannot be stored";
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return "contains an unpaired UTF-16 surrogate";
            }
            if (Character.isLowSurrogate(c)) {
                return "contains an unpaired UTF-16 surrogate";
            }
        }
        return null;
    }

    private static String textProblem(char[] buf, int off, int len) {
        return textProblem(java.nio.CharBuffer.wrap(buf, off, len), 0, len);
    }

    private static void walk(String field, JsonNode n, int depth, boolean limits) {
        if (n.isObject()) {
            if (limits && depth > MAX_DEPTH) {
                throw invalid(field + " nest deeper than " + MAX_DEPTH + " levels");
            }
            if (limits && n.size() > MAX_MEMBERS) {
                throw invalid(field + " hold an object of " + n.size() + " members, over the limit of "
                        + MAX_MEMBERS);
            }
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                String key = e.getKey();
                if (limits && key.length() > MAX_KEY_CHARS) {
                    throw invalid(field + " hold a member name of " + key.length()
                            + " characters, over the limit of " + MAX_KEY_CHARS);
                }
                String problem = textProblem(key);
                if (problem != null) {
                    throw invalid(field + ": a member name " + problem);
                }
                walk(field, e.getValue(), depth + 1, limits);
            }
        } else if (n.isArray()) {
            if (limits && depth > MAX_DEPTH) {
                throw invalid(field + " nest deeper than " + MAX_DEPTH + " levels");
            }
            for (JsonNode c : n) {
                walk(field, c, depth + 1, limits);
            }
        } else if (n.isString()) {
            String s = n.stringValue();
            if (limits && s.length() > MAX_STRING_CHARS) {
                throw invalid(field + " hold a string of " + s.length() + " characters, over the limit of "
                        + MAX_STRING_CHARS);
            }
            String problem = textProblem(s);
            if (problem != null) {
                throw invalid(field + ": a string " + problem);
            }
        }
    }

    /**
     * Consumes the value at the parser's current token (as {@code skipChildren} would) and checks it as
     * {@link #checkValue} does, without building it, and its string text against half of {@link #MAX_TEXT_BYTES}
     * (conservative: a caller that gets a problem back decides exactly on the built value).
     *
     * @return null when the value passes, else what is wrong
     */
    public static String skipChecked(JsonParser p) {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return stringProblem(p);
        }
        if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
            return null;
        }
        int[] members = new int[MAX_DEPTH + 1];
        int depth = 1;
        long[] text = new long[1];
        String problem = null;
        while (depth > 0) {
            t = p.nextToken();
            if (problem != null) {
                // the value is wrong already: only consume it
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    p.skipChildren();
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                }
                continue;
            }
            switch (t) {
                case START_OBJECT, START_ARRAY -> {
                    if (depth == MAX_DEPTH) {
                        problem = "nests deeper than " + MAX_DEPTH + " levels";
                        p.skipChildren();
                    } else {
                        depth++;
                        members[depth] = 0;
                    }
                }
                case END_OBJECT, END_ARRAY -> depth--;
                case PROPERTY_NAME -> {
                    String name = p.currentName();
                    if (++members[depth] > MAX_MEMBERS) {
                        problem = "holds an object of more than " + MAX_MEMBERS + " members";
                    } else if (name.length() > MAX_KEY_CHARS) {
                        problem = "holds a member name over " + MAX_KEY_CHARS + " characters";
                    } else if (textProblem(name) != null) {
                        problem = "holds a member name that " + textProblem(name);
                    }
                }
                case VALUE_STRING -> {
                    problem = stringProblem(p);
                    // half the budget: a name counts twice, and the exact check is the judge
                    text[0] += utf8Length(java.nio.CharBuffer.wrap(p.getStringCharacters(), p.getStringOffset(),
                            p.getStringLength()));
                    if (problem == null && text[0] > MAX_TEXT_BYTES / 2) {
                        problem = "holds over " + MAX_TEXT_BYTES / 2 + " bytes of string text";
                    }
                }
                default -> {
                    // numbers, booleans, null
                }
            }
        }
        return problem;
    }

    private static String stringProblem(JsonParser p) {
        int len = p.getStringLength();
        if (len > MAX_STRING_CHARS) {
            return "holds a string over " + MAX_STRING_CHARS + " characters";
        }
        String problem = textProblem(p.getStringCharacters(), p.getStringOffset(), len);
        return problem == null ? null : "holds a string that " + problem;
    }

    /** @return the number of bytes {@code s} takes in UTF-8 (an unpaired surrogate counted as its replacement) */
    public static long utf8Length(CharSequence s) {
        long n = 0;
        int len = s.length();
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n++; // encoded as '?'
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static ApiException invalid(String message) {
        return new Refused(message);
    }

    /** A value past a limit or against the text rule: 400 {@code INVALID_BODY}. */
    public static final class Refused extends ApiException {
        public Refused(String message) {
            super(ProblemCode.INVALID_BODY, message);
        }
    }
}
