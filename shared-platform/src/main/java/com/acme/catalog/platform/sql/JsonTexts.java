package com.acme.catalog.platform.sql;

/**
 * JSON texts sent to PostgreSQL as one text parameter, the values separated by U+001E and split by
 * {@code string_to_array(?, chr(30))} ({@link UnnestColumns#jsonTexts}): PostgreSQL splits such a text several times
 * faster than it parses an array literal of quoted JSON (measured on the resolver's batch writes). A JSON text never
 * holds a raw control character (inside strings a serializer must escape it), so the separator is unambiguous.
 */
public final class JsonTexts {

    /** The separator, {@code chr(30)} in SQL. */
    public static final char SEPARATOR = '\u001e';

    private JsonTexts() {
    }

    /**
     * The texts joined by {@link #SEPARATOR}; no text for no texts, which {@code string_to_array} splits into an
     * empty array.
     *
     * @throws IllegalArgumentException when a text holds a raw U+001E (it is not JSON text)
     */
    public static String join(String[] texts) {
        int length = texts.length;
        for (String t : texts) {
            length += t.length();
        }
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < texts.length; i++) {
            if (texts[i].indexOf(SEPARATOR) >= 0) {
                throw new IllegalArgumentException("not JSON text: it holds a raw U+001E");
            }
            if (i > 0) {
                sb.append(SEPARATOR);
            }
            sb.append(texts[i]);
        }
        return sb.toString();
    }
}
