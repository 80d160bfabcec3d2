package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.support.ChainWriter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A stream to open that the resolver still holds from position 1 is left to its first delivery while deliveries are
 * opening streams (docs/streams.md): a product subscribing to thousands of streams does not run a recovery cycle per
 * stream beside the deliveries that open them. One still unopened at a pass after which no delivery opened a stream
 * gets its cycle then; one whose outbox is pruned gets it at once (no delivery can start it from position 1).
 */
@ProductWithRecovery(properties = {
        "product.consumer-id=product-open", "product.recovery.instance-id=open",
        "product.streams=acme/*",
        // every sweep checks positions; the scheduled ones are out of the way
        "product.recovery.interval=PT0.001S", "product.epochs.poll-interval=PT1H", "product.rollbacks.poll=PT1H"})
class StreamSweepOpeningIT {

    private static final FakeCatchUpResolver RESOLVER = new FakeCatchUpResolver();

    @DynamicPropertySource
    static void resolverUrl(DynamicPropertyRegistry registry) {
        registry.add("product.resolver-url", RESOLVER::baseUrl);
    }

    @AfterAll
    static void close() {
        RESOLVER.close();
    }

    @LocalServerPort
    int port;
    @Autowired
    StreamSweep sweep;
    @Autowired
    GenerationRepository generations;

    @Test
    void anUnprunedStreamIsLeftToItsFirstDeliveryWhileDeliveriesOpenStreams() {
        List<ChainWriter.Event> fresh = history("fresh", 4, 1);
        List<ChainWriter.Event> delivered = history("delivered", 4, 2);
        RESOLVER.stream("fresh").events = fresh;
        RESOLVER.stream("delivered").events = delivered;

        assertThat(sweep.sweep()).as("both left to their first delivery").isZero();
        assertThat(deliver(delivered)).isEqualTo(200);
        assertThat(sweep.sweep()).as("a delivery opened a stream since: the relay is at work, the other waits")
                .isZero();
        assertThat(sweep.sweep()).as("no stream opened since, the other still unopened: its cycle now").isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> served("fresh"));
        assertThat(sweep.sweep()).as("both current").isZero();

        RESOLVER.stream("pruned").events = history("pruned", 4, 3);
        RESOLVER.stream("pruned").prunedThrough = 2;
        assertThat(sweep.sweep()).as("a pruned stream cannot be opened by a delivery: its cycle at once").isEqualTo(1);
    }

    private boolean served(String catalog) {
        return generations.servingCursors().stream()
                .anyMatch(c -> c.stream().equals(new StreamId("acme", catalog)) && c.appliedPosition() == 4);
    }

    private int deliver(List<ChainWriter.Event> events) {
        return SweepFixtures.deliver(port, events);
    }

    private static List<ChainWriter.Event> history(String catalog, int n, long seed) {
        return SweepFixtures.history(catalog, n, seed);
    }
}
