package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;

/** Consumers: start at P, monotonic progress per (stream, epoch), hold retention until an operator removes them. */
class ConsumerProgressIT extends AbstractRetentionIT {

    @Test
    void aNewConsumerStartsAtPrunedThroughAndCannotClaimPrunedEvents() {
        StreamId s = new StreamId("acme", "c-start");
        write(s, 10);
        publishThrough(s, 10);
        prune(s);
        Response r = register("c", "late-joiner", s, 1);
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.text("consumerId")).isEqualTo("late-joiner");
        assertThat(r.number("durablePosition")).isEqualTo(10);
    }

    @Test
    void progressReportedOutOfOrderKeepsTheHighest() {
        StreamId s = new StreamId("acme", "c-order");
        write(s, 10);
        assertThat(register("c", "p1", s, 1).number("durablePosition")).isZero();

        Response five = progress("c", "p1", s, 1, 5);
        assertThat(five.status()).isEqualTo(200);
        assertThat(five.number("durablePosition")).isEqualTo(5);
        Response three = progress("c", "p1", s, 1, 3);
        assertThat(three.status()).isEqualTo(200);
        assertThat(three.number("durablePosition")).isEqualTo(5);
        Response seven = progress("c", "p1", s, 1, 7);
        assertThat(seven.number("durablePosition")).isEqualTo(7);
        assertThat(durable("p1", s)).isEqualTo(7);
    }

    @Test
    void aReportForAnotherEpochOrAheadOfTheCursorIsRefusedAndChangesNoProgress() {
        StreamId s = new StreamId("acme", "c-refuse");
        write(s, 10);
        register("c", "p2", s, 1);
        progress("c", "p2", s, 1, 4);

        Response otherEpoch = progress("c", "p2", s, 2, 6);
        assertThat(otherEpoch.status()).isEqualTo(409);
        assertThat(otherEpoch.code()).isEqualTo("EPOCH_MISMATCH");
        // ahead of the cursor means the resolver's history was rolled back (RollbackDetectionIT covers the rest)
        Response ahead = progress("c", "p2", s, 1, 11);
        assertThat(ahead.status()).isEqualTo(503);
        assertThat(ahead.code()).isEqualTo("HISTORY_ROLLED_BACK");
        assertThat(ahead.contentType()).startsWith("application/problem+json");
        assertThat(durable("p2", s)).isEqualTo(4);
        assertThat(progress("c", "p2", s, 1, 10).number("durablePosition")).isEqualTo(10);
    }

    @Test
    void aLaggingConsumerHoldsPruningUntilAnOperatorDeregistersIt() {
        StreamId s = new StreamId("acme", "c-lag");
        write(s, 20);
        register("c", "slow", s, 1);
        progress("c", "slow", s, 1, 7);
        publishThrough(s, 20);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(7);
        // pruning again never drops it
        prune(s);
        assertThat(durable("slow", s)).isEqualTo(7);
        Response status = get("/v1/retention/streams/acme/c-lag", "op");
        assertThat(status.body().path("blockedBy").get(0).path("kind").stringValue()).isEqualTo("consumer");
        assertThat(status.body().path("blockedBy").get(0).path("id").stringValue()).isEqualTo("slow");
        assertThat(status.body().path("blockedBy").get(0).path("position").asLong()).isEqualTo(7);

        Response byConsumer = delete("/v1/retention/consumers/slow", "c");
        assertThat(byConsumer.status()).isEqualTo(403);
        assertThat(byConsumer.code()).isEqualTo("FORBIDDEN");
        assertThat(delete("/v1/retention/consumers/slow", "op").status()).isEqualTo(204);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(20);
        assertThat(delete("/v1/retention/consumers/slow", "op").status()).isEqualTo(404);
    }

    @Test
    void reRegistrationKeepsProgressAndReplacesTheDeliveryUrl() {
        StreamId s = new StreamId("acme", "c-again");
        write(s, 5);
        Response first = post("/v1/retention/consumers", "c", Map.of("consumerId", "p3", "tenant", "acme",
                "catalog", "c-again", "epoch", 1, "deliveryUrl", "http://product-1:8082/v1/inbox/events"));
        assertThat(first.text("deliveryUrl")).isEqualTo("http://product-1:8082/v1/inbox/events");
        progress("c", "p3", s, 1, 4);
        Response again = post("/v1/retention/consumers", "c", Map.of("consumerId", "p3", "tenant", "acme",
                "catalog", "c-again", "epoch", 1, "deliveryUrl", "https://product-2/v1/inbox/events"));
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.number("durablePosition")).isEqualTo(4);
        assertThat(jdbc.sql("SELECT delivery_url FROM retention_consumer WHERE consumer_id = 'p3'")
                .query(String.class).single()).isEqualTo("https://product-2/v1/inbox/events");
    }

    @Test
    void aConsumerTokenActsOnlyForConsumersItRegisteredAndOnlyInItsTenants() {
        StreamId s = new StreamId("acme", "c-owner");
        write(s, 5);
        assertThat(register("c", "owned", s, 1).status()).isEqualTo(201);
        Response stranger = progress("c-acme", "owned", s, 1, 2);
        assertThat(stranger.status()).isEqualTo(403);
        assertThat(register("c-acme", "owned", s, 1).status()).isEqualTo(403);
        assertThat(progress("op", "owned", s, 1, 2).number("durablePosition")).isEqualTo(2);
        assertThat(progress("c", "owned", s, 1, 3).number("durablePosition")).isEqualTo(3);

        StreamId other = new StreamId("globex", "c-owner");
        write(other, 2);
        Response wrongTenant = register("c-acme", "mine", other, 1);
        assertThat(wrongTenant.status()).isEqualTo(403);
        assertThat(register("c-acme", "mine", s, 1).status()).isEqualTo(201);
        assertThat(progress("c-acme", "mine", s, 1, 5).number("durablePosition")).isEqualTo(5);
    }

    @Test
    void afterAnEpochChangeTheConsumerReRegistersInTheNewEpoch() {
        StreamId s = new StreamId("acme", "c-epoch");
        write(s, 6);
        register("c", "p4", s, 1);
        progress("c", "p4", s, 1, 6);
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = 'acme' AND catalog = 'c-epoch'").update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES ('acme', 'c-epoch', 2)").update();

        Response stale = register("c", "p4", s, 1);
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.code()).isEqualTo("EPOCH_MISMATCH");
        Response moved = register("c", "p4", s, 2);
        assertThat(moved.status()).isEqualTo(201);
        assertThat(moved.number("durablePosition")).isZero();
        assertThat(moved.number("epoch")).isEqualTo(2);
        assertThat(progress("c", "p4", s, 1, 6).code()).isEqualTo("EPOCH_MISMATCH");
    }

    @Test
    void aConsumerMayRegisterBeforeTheStreamsFirstWrite() {
        StreamId s = new StreamId("acme", "c-early");
        assertThat(register("c", "early", s, 1).number("durablePosition")).isZero();
        assertThat(progress("c", "early", s, 1, 1).code()).isEqualTo("POSITION_AHEAD");
        write(s, 3);
        assertThat(progress("c", "early", s, 1, 3).number("durablePosition")).isEqualTo(3);
    }

    private long durable(String consumerId, StreamId s) {
        return jdbc.sql("SELECT durable_position FROM retention_consumer WHERE consumer_id = ? AND tenant = ? "
                + "AND catalog = ?").params(consumerId, s.tenant(), s.catalog()).query(Long.class).single();
    }
}
