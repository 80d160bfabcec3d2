package com.acme.catalog.resolver.convert;

import java.util.Random;
import java.util.UUID;

import com.acme.catalog.contracts.UuidV7;

/**
 * The new event ids of a conversion: UUIDv7 from the clock, or, with a seed, a reproducible sequence (the same seed
 * gives the same ids, so a converted file is the same bytes every time). The import uses an id for validation and
 * diagnostics only and gives every event a new id of its own; a seeded id is never presented as a time.
 */
abstract sealed class EventIds {

    /** Milliseconds of the first seeded id: 2024-01-01T00:00:00Z, counting up one per 4,096 ids. */
    static final long SEEDED_MILLIS = 1_704_067_200_000L;

    abstract UUID next();

    static EventIds of(Long seed) {
        return seed == null ? new Clocked() : new Seeded(seed);
    }

    private static final class Clocked extends EventIds {
        @Override
        UUID next() {
            return UuidV7.next();
        }
    }

    private static final class Seeded extends EventIds {
        private final Random random;
        private long issued;

        Seeded(long seed) {
            this.random = new Random(seed);
        }

        @Override
        UUID next() {
            long millis = SEEDED_MILLIS + (issued >>> 12);
            long seq = issued & 0xFFF;
            issued++;
            long msb = (millis << 16) | (0x7L << 12) | seq;
            long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            return new UUID(msb, lsb);
        }
    }
}
