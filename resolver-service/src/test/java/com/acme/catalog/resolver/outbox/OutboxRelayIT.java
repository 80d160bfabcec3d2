package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.resolver.outbox.FakeConsumer.Delivery;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The relay against two HTTP consumers, one of them down: the healthy one gets every event in order with a
 * verifying chain and the relay token, promptly after commit (the poll interval is a minute, so only the commit
 * notification can explain it); the down one is retried with growing pauses without holding the other back;
 * nothing is published, and the pruner is held, until the down consumer has its events too.
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=r", "relay.poll-interval=PT60S",
        "relay.backoff-initial=PT0.2S", "relay.backoff-max=PT2S", "relay.batch-events=7",
        "retention.min-age=PT0S", "retention.prune.enabled=false"})
class OutboxRelayIT extends ResolverIT {

    private static final String S = "/v1/streams/acme/relay";

    @Autowired
    JdbcClient jdbc;
    @Autowired
    ObjectMapper json;

    @Test
    void deliversInOrderBacksOffFromADownConsumerAndPublishesOnlyWhatEveryoneHas() throws Exception {
        try (FakeConsumer healthy = new FakeConsumer(); FakeConsumer broken = new FakeConsumer()) {
            broken.down(true);
            write("first");
            // with no push consumer yet, the first event is published without any delivery (off the commit path)
            await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
            register("healthy", healthy.url());
            register("broken", broken.url());

            for (int i = 0; i < 40; i++) {
                write("item-" + i);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> delivered(healthy).size() == 41);
            List<JsonNode> events = delivered(healthy);
            String digest = ChainDigest.ZERO;
            for (int i = 0; i < events.size(); i++) {
                assertThat(events.get(i).path("position").longValue()).isEqualTo(i + 1L);
            }
            for (Delivery d : healthy.accepted()) {
                assertThat(d.authorization()).isEqualTo("Bearer r");
            }
            for (String raw : rawEvents(healthy)) {
                EventWire.Split split = EventWire.split(raw);
                digest = ChainDigest.next(digest, split.wire());
                assertThat(split.chainDigest()).isEqualTo(digest);
            }

            // a commit wakes the relay at once although the poll interval is a minute
            long t0 = System.nanoTime();
            write("prompt");
            await().atMost(Duration.ofSeconds(5)).until(() -> delivered(healthy).size() == 42);
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(3_000);

            // the broken consumer was retried with growing pauses, and nothing is published for it
            await().atMost(Duration.ofSeconds(20)).until(() -> broken.deliveries.size() >= 4);
            List<Long> gaps = new ArrayList<>();
            for (int i = 1; i < broken.deliveries.size(); i++) {
                gaps.add(broken.deliveries.get(i).nanos() - broken.deliveries.get(i - 1).nanos());
            }
            assertThat(gaps.get(gaps.size() - 1)).isGreaterThan(gaps.get(0));
            // the first event was published at commit: there was no push consumer yet to deliver it to
            assertThat(unpublished()).isEqualTo(41);

            JsonNode pruned = json.readTree(client("op").post().uri("/v1/retention/prune")
                    .header("Content-Type", "application/json").body("{\"tenant\":\"acme\",\"catalog\":\"relay\"}")
                    .retrieve().body(String.class));
            assertThat(pruned.path("pruned").longValue()).isZero();
            JsonNode status = json.readTree(client("op").get().uri("/v1/retention/streams/acme/relay").retrieve()
                    .body(String.class));
            assertThat(status.path("blockedBy").toString()).contains("broken");

            broken.down(false);
            await().atMost(Duration.ofSeconds(20)).until(() -> delivered(broken).size() == 42);
            await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
            assertThat(delivered(broken)).extracting(e -> e.path("position").longValue())
                    .isEqualTo(delivered(healthy).stream().map(e -> e.path("position").longValue()).toList());
        }
    }

    private void write(String id) {
        client("w").put().uri(S + "/items/" + id).header("Content-Type", "application/json")
                .body("{\"attributes\":{\"name\":\"" + id + "\"}}").retrieve().toBodilessEntity();
    }

    private void register(String consumer, String url) {
        var res = client("op").post().uri("/v1/retention/consumers").header("Content-Type", "application/json")
                .body("{\"consumerId\":\"" + consumer + "\",\"tenant\":\"acme\",\"catalog\":\"relay\",\"epoch\":1,"
                        + "\"deliveryUrl\":\"" + url + "\"}")
                .retrieve().toEntity(String.class);
        assertThat(res.getStatusCode().value()).as(res.getBody()).isEqualTo(201);
    }

    private long unpublished() {
        return jdbc.sql("""
                SELECT count(*) FROM outbox o
                 WHERE o.catalog = 'relay'
                   AND o.position > coalesce((SELECT max(w.through) FROM outbox_publish w WHERE w.tenant = o.tenant
                                               AND w.catalog = o.catalog AND w.epoch = o.epoch), 0)
                """).query(Long.class).single();
    }

    /** Distinct events by position, as accepted by the consumer (redeliveries collapse). */
    private List<JsonNode> delivered(FakeConsumer c) {
        TreeMap<Long, JsonNode> byPosition = new TreeMap<>();
        for (Delivery d : c.accepted()) {
            for (JsonNode e : json.readTree(d.body()).path("events")) {
                byPosition.put(e.path("position").longValue(), e);
            }
        }
        return new ArrayList<>(byPosition.values());
    }

    /** The raw event texts of accepted deliveries, first occurrence of each position, in position order. */
    private List<String> rawEvents(FakeConsumer c) {
        TreeMap<Long, String> byPosition = new TreeMap<>();
        for (Delivery d : c.accepted()) {
            String body = d.body();
            String inner = body.substring(body.indexOf('[') + 1, body.lastIndexOf(']'));
            // events are objects whose last member is chainDigest; split on the boundary "\"},{\"tenant\""
            for (String part : inner.split("(?<=\"\\}),(?=\\{\"tenant\")")) {
                long position = json.readTree(part).path("position").longValue();
                byPosition.putIfAbsent(position, part);
            }
        }
        return new ArrayList<>(byPosition.values());
    }
}
