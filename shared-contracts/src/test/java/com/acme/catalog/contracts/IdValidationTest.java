package com.acme.catalog.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The hand-written id checks accept exactly what the documented patterns accept (seeded random strings). */
class IdValidationTest {

    private static final Pattern PART = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final String ALPHABET = "az09AZ-._:/ é\u0000b7Z";

    @Test
    void streamPartsAndAggregateIdsAgreeWithTheirPatterns() {
        long seed = Long.getLong("test.seed", 20261130L);
        Random random = new Random(seed);
        for (int i = 0; i < 50_000; i++) {
            int length = random.nextInt(4) == 0 ? 60 + random.nextInt(75) : random.nextInt(8);
            StringBuilder s = new StringBuilder();
            for (int j = 0; j < length; j++) {
                s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            String value = s.toString();
            assertThat(StreamId.isPart(value)).as("seed %d part '%s'", seed, value)
                    .isEqualTo(PART.matcher(value).matches());
            assertThat(AggregateIds.isId(value)).as("seed %d id '%s'", seed, value)
                    .isEqualTo(ID.matcher(value).matches());
        }
    }

    @Test
    void boundaries() {
        assertThat(StreamId.isPart("a".repeat(63))).isTrue();
        assertThat(StreamId.isPart("a".repeat(64))).isFalse();
        assertThat(StreamId.isPart("-a")).isFalse();
        assertThat(StreamId.isPart("a-")).isTrue();
        assertThat(StreamId.isPart(null)).isFalse();
        assertThat(AggregateIds.isId("x".repeat(128))).isTrue();
        assertThat(AggregateIds.isId("x".repeat(129))).isFalse();
        assertThat(AggregateIds.isId("")).isFalse();
        assertThatThrownBy(() -> new StreamId("Acme", "c")).isInstanceOf(InvalidIdException.class);
        assertThatThrownBy(() -> AggregateIds.require("itemId", "a b")).isInstanceOf(InvalidIdException.class);
    }
}
