package com.acme.catalog.resolver.outbox;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.resolver.outbox.RelayRepository.Event;

/**
 * A delivery on the wire: a {@code POST} of {@code {"events":[…]}} whose elements are the events' stored wire with
 * their {@code chainDigest} ({@link EventWire#withDigest}), in position order, UTF-8; {@code Content-Type:
 * application/json} and, when {@code relay.token} is set, {@code Authorization: Bearer <token>}. A delivery carries
 * the longest prefix of the pending events whose whole body, framing included, is at most {@code relay.batch-bytes}
 * and never over {@link JsonLimits#MAX_DELIVERY_BYTES} (the least every consumer's inbox accepts), and at least one
 * event, whatever its size. No I/O: the request is built, not sent.
 */
final class DeliveryFraming {

    private static final byte[] BODY_OPEN = "{\"events\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BODY_CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);

    private final long boundBytes;
    private final String token;

    /** @param token the bearer sent to consumers; empty: no {@code Authorization} header */
    DeliveryFraming(long batchBytes, String token) {
        this.boundBytes = Math.min(batchBytes, JsonLimits.MAX_DELIVERY_BYTES);
        this.token = token;
    }

    /**
     * @param after  the consumer's delivery cursor: the position before the first event
     * @param events the pending events after it, in position order; at least one
     * @return the delivery of the longest prefix of {@code events} within the byte bound, at least one event
     */
    Frame frame(long after, List<Event> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a delivery carries at least one event");
        }
        Body body = new Body(256 * events.size() + 16);
        body.writeBytes(BODY_OPEN);
        long bytes = BODY_OPEN.length + BODY_CLOSE.length;
        long through = after;
        int count = 0;
        Optional<Oversized> oversized = Optional.empty();
        for (Event e : events) {
            // encoded once: its length is the element's size in the body, and its bytes are what is sent
            byte[] element = EventWire.withDigest(e.wire(), e.chainDigest()).getBytes(StandardCharsets.UTF_8);
            long size = element.length;
            if (count > 0 && bytes + 1 + size > boundBytes) {
                break;
            }
            if (count > 0) {
                body.write(',');
                bytes++;
            }
            if (count == 0 && bytes + size > JsonLimits.MAX_DELIVERY_BYTES) {
                oversized = Optional.of(new Oversized(e.position(), size));
            }
            body.writeBytes(element);
            bytes += size;
            through = e.position();
            count++;
        }
        body.writeBytes(BODY_CLOSE);
        return new Frame(after, through, count, events.get(0).occurredAt(), oversized, body);
    }

    /** @return the {@code POST} of {@code frame} to {@code url}, sent from the frame's own buffer */
    HttpRequest request(URI url, Duration timeout, Frame frame) {
        HttpRequest.Builder req = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(frame.body().publisher());
        if (!token.isEmpty()) {
            req.header("Authorization", "Bearer " + token);
        }
        return req.build();
    }

    /**
     * One delivery's events and body.
     *
     * @param after     the position before its first event
     * @param through   the position of its last event
     * @param count     how many events it carries ({@code through - after})
     * @param oldest    when its first event was written ({@code occurredAt}, the writing instance's clock)
     * @param oversized its single event, when that event's element alone is over {@link JsonLimits#MAX_DELIVERY_BYTES}
     *                  (written before the limits: a consumer may refuse it)
     */
    record Frame(long after, long through, int count, Instant oldest, Optional<Oversized> oversized, Body body) {
    }

    /** An event whose element, digest included, is {@code bytes} long: over what every consumer accepts. */
    record Oversized(long position, long bytes) {
    }

    /** A delivery's body in UTF-8, sent from its own buffer (no copy into a String or another array). */
    static final class Body extends ByteArrayOutputStream {

        private Body(int size) {
            super(size);
        }

        HttpRequest.BodyPublisher publisher() {
            return HttpRequest.BodyPublishers.ofByteArray(buf, 0, count);
        }
    }
}
