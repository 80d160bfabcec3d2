package com.acme.catalog.contracts;

/**
 * The stored wire text of an event and its chain digest travel as one JSON object: the wire with
 * {@code ,"chainDigest":"<hex>"} inserted before its final {@code }}. Cutting that suffix off gives back the
 * exact wire, so any client can verify the chain without re-serializing anything.
 */
public final class EventWire {

    private static final String MEMBER = ",\"chainDigest\":\"";
    /** Length of {@code ,"chainDigest":"<64 hex>"}} . */
    private static final int SUFFIX_LENGTH = MEMBER.length() + 64 + 2;

    private EventWire() {
    }

    /** @return the wire with the chain digest member appended as its last member */
    public static String withDigest(String wire, String chainDigest) {
        int end = wire.lastIndexOf('}');
        if (end < 0) {
            throw new IllegalArgumentException("wire is not a JSON object");
        }
        return new StringBuilder(wire.length() + SUFFIX_LENGTH)
                .append(wire, 0, end).append(MEMBER).append(chainDigest).append('"').append(wire, end, wire.length())
                .toString();
    }

    /** Splits a delivered event object into its stored wire and its chain digest. */
    public static Split split(String delivered) {
        String text = delivered.strip();
        int at = text.length() - SUFFIX_LENGTH;
        if (at < 0 || !text.startsWith(MEMBER, at) || !text.endsWith("\"}")) {
            throw new IllegalArgumentException("event does not end with a chainDigest member");
        }
        String digest = text.substring(at + MEMBER.length(), text.length() - 2);
        if (!ChainDigest.isDigest(digest)) {
            throw new IllegalArgumentException("chainDigest is not 64 lowercase hex characters");
        }
        return new Split(text.substring(0, at) + "}", digest);
    }

    /** A delivered event taken apart. */
    public record Split(String wire, String chainDigest) {
    }
}
