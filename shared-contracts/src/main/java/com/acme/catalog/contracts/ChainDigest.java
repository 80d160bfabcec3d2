package com.acme.catalog.contracts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The hash chain over a (stream, epoch): {@code d(0)} is 64 zeros and
 * {@code d(p) = hex(SHA-256(d(p-1) + "\n" + wire(p)))} over the exact UTF-8 bytes of the stored wire.
 */
public final class ChainDigest {

    /** The digest before the first event. */
    public static final String ZERO = "0".repeat(64);

    private static final HexFormat HEX = HexFormat.of();
    /** A digest per thread: looking one up in the security providers costs more than hashing a small event. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(ChainDigest::sha256);

    private ChainDigest() {
    }

    /** @return the digest after {@code wire}, given the digest before it; never null */
    public static String next(String previous, String wire) {
        MessageDigest sha = SHA256.get();
        sha.reset();
        sha.update(previous.getBytes(StandardCharsets.US_ASCII));
        sha.update((byte) '\n');
        sha.update(wire.getBytes(StandardCharsets.UTF_8));
        return HEX.formatHex(sha.digest());
    }

    public static boolean isDigest(String s) {
        if (s == null || s.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = s.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }
}
