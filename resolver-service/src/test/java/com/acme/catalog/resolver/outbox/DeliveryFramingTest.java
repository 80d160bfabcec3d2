package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.resolver.outbox.DeliveryFraming.Frame;
import com.acme.catalog.resolver.outbox.DeliveryFraming.Oversized;
import com.acme.catalog.resolver.outbox.RelayRepository.Event;

import org.junit.jupiter.api.Test;

/**
 * What a delivery looks like on the wire, byte for byte: the events' stored wire with their chain digest in one
 * {@code {"events":[…]}} body, bounded in UTF-8 bytes (framing included), at least one event, and its headers.
 */
class DeliveryFramingTest {

    private static final String D1 = "1".repeat(64);
    private static final String D2 = "2".repeat(64);
    private static final String D3 = "3".repeat(64);
    private static final Instant T1 = Instant.parse("2026-12-05T10:00:00Z");
    private static final Instant T2 = Instant.parse("2026-12-05T10:00:01Z");

    private static final Event E1 = new Event(5, "{\"position\":5,\"t\":\"a\"}", D1, T1);
    private static final Event E2 = new Event(6, "{\"position\":6,\"t\":\"€\"}", D2, T2);
    private static final Event E3 = new Event(7, "{\"position\":7}", D3, T2);

    private static final String EL1 = "{\"position\":5,\"t\":\"a\",\"chainDigest\":\"" + D1 + "\"}";
    private static final String EL2 = "{\"position\":6,\"t\":\"€\",\"chainDigest\":\"" + D2 + "\"}";
    private static final String EL3 = "{\"position\":7,\"chainDigest\":\"" + D3 + "\"}";

    @Test
    void framesTheEventsWireWithTheirDigestsInOneBody() {
        Frame frame = new DeliveryFraming(1_048_576, "r").frame(4, List.of(E1, E2, E3));

        assertThat(body(frame)).isEqualTo(("{\"events\":[" + EL1 + "," + EL2 + "," + EL3 + "]}")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(frame.after()).isEqualTo(4);
        assertThat(frame.through()).isEqualTo(7);
        assertThat(frame.count()).isEqualTo(3);
        assertThat(frame.oldest()).isEqualTo(T1);
        assertThat(frame.oversized()).isEmpty();
    }

    @Test
    void theBoundIsTheWholeBodyInUtf8BytesFramingIncluded() {
        // '€' is one character but three bytes: counting characters would take one event too many
        int both = bytes("{\"events\":[" + EL1 + "," + EL2 + "]}");
        assertThat(both).isEqualTo(("{\"events\":[" + EL1 + "," + EL2 + "]}").length() + 2);

        Frame fits = new DeliveryFraming(both, "").frame(4, List.of(E1, E2, E3));
        assertThat(string(fits)).isEqualTo("{\"events\":[" + EL1 + "," + EL2 + "]}");
        assertThat(fits.through()).isEqualTo(6);
        assertThat(fits.count()).isEqualTo(2);

        Frame oneByteShort = new DeliveryFraming(both - 1, "").frame(4, List.of(E1, E2, E3));
        assertThat(string(oneByteShort)).isEqualTo("{\"events\":[" + EL1 + "]}");
        assertThat(oneByteShort.through()).isEqualTo(5);
        assertThat(oneByteShort.count()).isEqualTo(1);
    }

    @Test
    void oneEventGoesAloneWhateverTheBound() {
        Frame frame = new DeliveryFraming(10, "").frame(4, List.of(E1, E2));

        assertThat(string(frame)).isEqualTo("{\"events\":[" + EL1 + "]}");
        assertThat(frame.through()).isEqualTo(5);
        assertThat(frame.oversized()).as("within what every consumer accepts").isEmpty();
    }

    @Test
    void theBoundNeverExceedsWhatEveryInboxAccepts() {
        // two events of 600 KB: under relay.batch-bytes, but together over MAX_DELIVERY_BYTES
        Event a = new Event(1, "{\"t\":\"" + "a".repeat(600_000) + "\"}", D1, T1);
        Event b = new Event(2, "{\"t\":\"" + "b".repeat(600_000) + "\"}", D2, T2);

        Frame frame = new DeliveryFraming(Integer.MAX_VALUE, "").frame(0, List.of(a, b));

        assertThat(frame.count()).isEqualTo(1);
        assertThat(frame.through()).isEqualTo(1);
        assertThat(body(frame).length).isLessThanOrEqualTo(JsonLimits.MAX_DELIVERY_BYTES);
        assertThat(frame.oversized()).isEmpty();
    }

    @Test
    void anEventOverTheDeliveryLimitIsSentAloneAndNamed() {
        String wire = "{\"t\":\"" + "x".repeat(JsonLimits.MAX_DELIVERY_BYTES) + "\"}";
        Event big = new Event(9, wire, D1, T1);
        Event small = new Event(10, "{\"position\":10}", D2, T2);

        Frame frame = new DeliveryFraming(1_048_576, "").frame(8, List.of(big, small));

        int element = bytes(wire) + ",\"chainDigest\":\"\"".length() + 64;
        assertThat(frame.oversized()).contains(new Oversized(9, element));
        assertThat(frame.count()).isEqualTo(1);
        assertThat(frame.through()).isEqualTo(9);
        assertThat(body(frame).length).isEqualTo("{\"events\":[]}".length() + element);
    }

    @Test
    void aDeliveryCarriesAtLeastOneEvent() {
        assertThatThrownBy(() -> new DeliveryFraming(1_048_576, "").frame(4, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theRequestPostsTheBodyAsJsonWithTheRelayTokenAsBearer() {
        DeliveryFraming framing = new DeliveryFraming(1_048_576, "r");
        Frame frame = framing.frame(4, List.of(E1));

        var request = framing.request(URI.create("http://product:8082/v1/inbox"), Duration.ofSeconds(10), frame);

        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.uri()).isEqualTo(URI.create("http://product:8082/v1/inbox"));
        assertThat(request.timeout()).contains(Duration.ofSeconds(10));
        assertThat(request.headers().map()).isEqualTo(Map.of(
                "Content-Type", List.of("application/json"), "Authorization", List.of("Bearer r")));
        assertThat(request.bodyPublisher().map(p -> p.contentLength()))
                .isEqualTo(Optional.of((long) body(frame).length));
    }

    @Test
    void withoutATokenNoAuthorizationIsSent() {
        DeliveryFraming framing = new DeliveryFraming(1_048_576, "");
        Frame frame = framing.frame(4, List.of(E1));

        var request = framing.request(URI.create("http://product/v1/inbox"), Duration.ofSeconds(1), frame);

        assertThat(request.headers().map()).isEqualTo(Map.of("Content-Type", List.of("application/json")));
    }

    private static byte[] body(Frame frame) {
        return frame.body().toByteArray();
    }

    private static String string(Frame frame) {
        return new String(body(frame), StandardCharsets.UTF_8);
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
