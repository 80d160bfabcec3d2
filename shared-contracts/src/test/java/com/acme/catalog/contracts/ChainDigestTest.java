package com.acme.catalog.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class ChainDigestTest {

    @Test
    void chainsOverPreviousDigestNewlineAndWireBytes() throws Exception {
        String wire = "{\"name\":\"Trail runner ü\"}";
        byte[] expected = ChainDigest.sha256()
                .digest((ChainDigest.ZERO + "\n" + wire).getBytes(StandardCharsets.UTF_8));
        assertThat(ChainDigest.next(ChainDigest.ZERO, wire)).isEqualTo(HexFormat.of().formatHex(expected));
        assertThat(ChainDigest.ZERO).hasSize(64).matches("0+");
        assertThat(ChainDigest.next(ChainDigest.ZERO, wire)).isNotEqualTo(ChainDigest.next(ChainDigest.ZERO, wire + " "));
    }

    @Test
    void consecutiveDigestsOnOneThreadDoNotLeakIntoEachOther() {
        String first = ChainDigest.next(ChainDigest.ZERO, "a");
        String second = ChainDigest.next(first, "b");
        String fresh = HexFormat.of().formatHex(ChainDigest.sha256()
                .digest((first + "\nb").getBytes(StandardCharsets.UTF_8)));
        assertThat(second).isEqualTo(fresh);
        assertThat(ChainDigest.next(ChainDigest.ZERO, "a")).isEqualTo(first);
    }

    @Test
    void isDigestTakesExactlySixtyFourLowercaseHexDigits() {
        assertThat(ChainDigest.isDigest(ChainDigest.ZERO)).isTrue();
        assertThat(ChainDigest.isDigest(ChainDigest.next(ChainDigest.ZERO, "x"))).isTrue();
        assertThat(ChainDigest.isDigest("0".repeat(63))).isFalse();
        assertThat(ChainDigest.isDigest("0".repeat(65))).isFalse();
        assertThat(ChainDigest.isDigest("A" + "0".repeat(63))).isFalse();
        assertThat(ChainDigest.isDigest("g" + "0".repeat(63))).isFalse();
        assertThat(ChainDigest.isDigest("/" + "0".repeat(63))).isFalse();
        assertThat(ChainDigest.isDigest(":" + "0".repeat(63))).isFalse();
        assertThat(ChainDigest.isDigest(null)).isFalse();
    }

    @Test
    void eventWireRoundTripsExactBytes() {
        String wire = "{\"a\":1,\"payload\":{\"b\":\"}\"}}";
        String digest = ChainDigest.next(ChainDigest.ZERO, wire);
        String delivered = EventWire.withDigest(wire, digest);
        assertThat(delivered).endsWith(",\"chainDigest\":\"" + digest + "\"}");
        EventWire.Split split = EventWire.split(delivered);
        assertThat(split.wire()).isEqualTo(wire);
        assertThat(split.chainDigest()).isEqualTo(digest);
        assertThatThrownBy(() -> EventWire.split(wire)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EventWire.split(delivered.replace(digest, digest.toUpperCase())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void uuidV7IsVersion7AndIncreasing() {
        UUID prev = UuidV7.next();
        for (int i = 0; i < 10_000; i++) {
            UUID next = UuidV7.next();
            assertThat(UuidV7.isV7(next)).isTrue();
            assertThat(next.toString().compareTo(prev.toString())).isPositive();
            prev = next;
        }
        long millis = prev.getMostSignificantBits() >>> 16;
        assertThat(Math.abs(millis - System.currentTimeMillis())).isLessThan(5_000);
    }

    @Test
    void streamIdsFollowTheContractPattern() {
        assertThat(new StreamId("acme", "shoes-2").toString()).isEqualTo("acme/shoes-2");
        for (String bad : new String[] {"", "Acme", "-a", "a_b", "a".repeat(64), "a b", null}) {
            assertThatThrownBy(() -> new StreamId(bad, "x")).isInstanceOf(InvalidIdException.class);
        }
        assertThat(AggregateIds.require("itemId", "sku:1.A-b_c")).isEqualTo("sku:1.A-b_c");
        assertThatThrownBy(() -> AggregateIds.require("itemId", "a/b")).isInstanceOf(InvalidIdException.class);
        assertThatThrownBy(() -> AggregateIds.require("itemId", "a".repeat(129)))
                .isInstanceOf(InvalidIdException.class);
    }
}
