package com.acme.catalog.resolver.outbox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.resolver.outbox.DeliveryFraming.Frame;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.Delivered;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.Failed;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.NotAllowed;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.Rejected;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Sends one framed delivery to a consumer's URL over HTTP/1.1 and says how it went, timing the round trip
 * ({@code resolver.relay.delivery}, by outcome) and, once acknowledged, the lag from the oldest event's write. A URL
 * outside the allowlist is checked before anything is sent, at every delivery: the token never goes there. Never
 * throws: every failure is an outcome.
 */
final class DeliveryClient {

    private final DeliveryFraming framing;
    private final DeliveryUrlAllowlist allowlist;
    private final Duration timeout;
    private final HttpClient http;
    private final Counter deliveredEvents;
    private final Counter refusedDeliveries;
    private final Timer deliveryTime;
    private final Timer failedDeliveryTime;
    private final Timer deliveryLag;

    DeliveryClient(DeliveryFraming framing, DeliveryUrlAllowlist allowlist, Duration timeout, MeterRegistry registry) {
        this.framing = framing;
        this.allowlist = allowlist;
        this.timeout = timeout;
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection to a plain-http consumer
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
        this.deliveredEvents = Counter.builder("resolver.relay.delivered.events")
                .description("events delivered to consumers (a redelivery counts again)").register(registry);
        this.refusedDeliveries = Counter.builder("resolver.relay.refused.deliveries")
                .description("deliveries not sent because the consumer's delivery URL is outside "
                        + "RELAY_ALLOWED_DELIVERY_URLS (each also counts as a failed delivery)").register(registry);
        this.deliveryTime = deliveryTimer(registry, "delivered");
        this.failedDeliveryTime = deliveryTimer(registry, "failed");
        this.deliveryLag = Timer.builder("resolver.relay.lag")
                .description("from the write of the oldest event of a delivery to the consumer's acknowledgement")
                .publishPercentileHistogram().register(registry);
    }

    private static Timer deliveryTimer(MeterRegistry registry, String outcome) {
        return Timer.builder("resolver.relay.delivery")
                .description("one delivery's HTTP round trip, the consumer's processing included")
                .tag("outcome", outcome).publishPercentileHistogram().register(registry);
    }

    /** @return {@link Delivered} through the frame's last event when the consumer answered 2xx, else the failure */
    DeliveryOutcome send(String deliveryUrl, Frame frame) {
        long started = System.nanoTime();
        DeliveryOutcome outcome = attempt(deliveryUrl, frame);
        if (outcome instanceof Delivered) {
            deliveryTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            deliveryLag.record(Duration.between(frame.oldest(), Instant.now()));
            deliveredEvents.increment(frame.count());
        } else {
            failedDeliveryTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
        return outcome;
    }

    private DeliveryOutcome attempt(String deliveryUrl, Frame frame) {
        try {
            if (!allowlist.allows(deliveryUrl)) {
                // registered before the allowlist existed or was narrowed
                refusedDeliveries.increment();
                return new NotAllowed(deliveryUrl);
            }
            HttpResponse<String> res = http.send(framing.request(URI.create(deliveryUrl), timeout, frame),
                    HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() / 100 != 2) {
                return new Rejected(res.statusCode(), res.body());
            }
            return new Delivered(frame.through());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Failed(e);
        } catch (Exception e) {
            return new Failed(e);
        }
    }
}
