package com.acme.catalog.contracts;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * RFC 9562 version 7 UUIDs: 48-bit Unix milliseconds, then random bits. Ids made by one generator are
 * strictly increasing even within one millisecond (the 12-bit {@code rand_a} field counts, method 1 of the RFC).
 */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static long lastMillis;
    private static int counter;

    private UuidV7() {
    }

    public static UUID next() {
        long millis;
        int seq;
        synchronized (UuidV7.class) {
            long now = System.currentTimeMillis();
            if (now > lastMillis) {
                lastMillis = now;
                counter = RANDOM.nextInt(1 << 10);
            } else if (++counter >= (1 << 12)) {
                lastMillis++;
                counter = 0;
            }
            millis = lastMillis;
            seq = counter;
        }
        long msb = (millis << 16) | (0x7L << 12) | seq;
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    public static boolean isV7(UUID id) {
        return id.version() == 7 && id.variant() == 2;
    }
}
