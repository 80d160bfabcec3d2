package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.acme.catalog.resolver.outbox.FakeConsumer.Delivery;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/**
 * One delivery thread, two consumers on two streams: a worker that goes on from batch to batch for a consumer
 * with a long backlog (without waiting for a notification or the poll, which is a minute here) still yields the
 * thread between batches to a consumer that waits, and hands its claims back once each consumer is caught up.
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=r", "relay.poll-interval=PT60S",
        "relay.workers=1", "relay.batch-events=5", "retention.prune.enabled=false"})
class RelayWorkerFairnessIT extends AbstractRelayIT {

    @Autowired
    JdbcClient jdbc;

    @Test
    void aLongBacklogGoesOnBatchAfterBatchWithoutHoldingTheOnlyWorker() throws Exception {
        try (FakeConsumer slowStream = new FakeConsumer(); FakeConsumer other = new FakeConsumer()) {
            slowStream.delay(Duration.ofMillis(20));
            for (int i = 0; i < 100; i++) {
                write("a-backlog", "item-" + i);
            }
            write("b-other", "one");
            // each registration wakes the relay for its stream (RelayWakeUp): the backlog is delivered at once
            register("backlogged", "a-backlog", slowStream.url());
            register("waiting", "b-other", other.url());
            write("b-other", "two");

            await().atMost(Duration.ofSeconds(60)).until(() -> positions(slowStream) == 100 && positions(other) == 2);
            List<Delivery> backlog = slowStream.accepted();
            assertThat(backlog).hasSize(20); // 100 events in batches of 5, all after a single wake-up
            long otherServed = other.accepted().get(0).nanos();
            assertThat(otherServed).as("the waiting consumer was served between the backlog's batches")
                    .isLessThan(backlog.get(backlog.size() - 1).nanos());
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.sql(
                    "SELECT count(*) FROM relay_delivery WHERE claimed_by IS NOT NULL").query(Long.class).single() == 0);
        }
    }
}
