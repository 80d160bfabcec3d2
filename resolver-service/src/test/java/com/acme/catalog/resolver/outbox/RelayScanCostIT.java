package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * A write costs the relay a look at its own stream, whatever the number of streams (docs/streams.md): with 60
 * streams each with a push consumer, writes to one stream are delivered by passes over the notified stream only, and
 * no pass over every stream's consumers happens until the poll (a minute here). A registration wakes the relay for
 * its stream, so it is delivered at once too.
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=r", "relay.poll-interval=PT60S",
        "retention.prune.enabled=false"})
class RelayScanCostIT extends AbstractRelayIT {

    private static final int STREAMS = 60;

    @Autowired
    MeterRegistry meters;

    @Test
    void writesAreDeliveredByPassesOverTheirOwnStreamOnly() throws Exception {
        try (FakeConsumer consumer = new FakeConsumer()) {
            for (int i = 0; i < STREAMS; i++) {
                write("scan-" + i, "first");
                register("scanner-" + i, "scan-" + i, consumer.url());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> positions(consumer) == STREAMS);

            double everyStream = scans("all");
            double notified = scans("notified");
            for (int i = 0; i < 10; i++) {
                write("scan-7", "more-" + i);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> positions(consumer) == STREAMS + 10);
            assertThat(scans("all")).as("passes over every stream during the writes").isEqualTo(everyStream);
            assertThat(scans("notified")).isGreaterThan(notified);
        }
    }

    private double scans(String kind) {
        return meters.get("resolver.relay.scans").tag("kind", kind).counter().count();
    }
}
