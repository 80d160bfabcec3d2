package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The relay sizes deliveries in UTF-8 bytes: six events of 66 K characters but 197 KB each (a string of '€', three
 * bytes a character) pending at once go out in bodies of at most 1 MiB, which every inbox accepts. Counting
 * characters, as the relay did, put all six (1.18 MB) in one body, over the product's delivery cap: the stream
 * stalled until recovery filled the gap.
 */
@TestPropertySource(properties = {"relay.enabled=true", "relay.token=r", "relay.poll-interval=PT1S",
        "retention.min-age=PT0S", "retention.prune.enabled=false"})
class RelayDeliveryBytesIT extends ResolverIT {

    private static final String S = "/v1/streams/acme/bytes";

    @Autowired
    ObjectMapper json;

    @Test
    void deliveriesStayWithinTheDeliveryLimitInBytes() throws Exception {
        try (FakeConsumer consumer = new FakeConsumer()) {
            String euros = "€".repeat(JsonLimits.MAX_STRING_CHARS);
            for (int i = 0; i < 6; i++) {
                var res = client("w").put().uri(S + "/items/big-" + i).header("Content-Type", "application/json")
                        .body("{\"attributes\":{\"name\":\"big\",\"t\":\"" + euros + "\"}}").retrieve()
                        .toEntity(String.class);
                assertThat(res.getStatusCode().value()).as(res.getBody()).isEqualTo(200);
            }
            var reg = client("op").post().uri("/v1/retention/consumers").header("Content-Type", "application/json")
                    .body("{\"consumerId\":\"bytes\",\"tenant\":\"acme\",\"catalog\":\"bytes\",\"epoch\":1,"
                            + "\"deliveryUrl\":\"" + consumer.url() + "\"}")
                    .retrieve().toEntity(String.class);
            assertThat(reg.getStatusCode().value()).as(reg.getBody()).isEqualTo(201);

            await().atMost(Duration.ofSeconds(30)).until(() -> positions(consumer).size() == 6);
            // sizes only: a failure message with the bodies would be megabytes
            List<Integer> sizes = consumer.accepted().stream()
                    .map(d -> d.body().getBytes(StandardCharsets.UTF_8).length).toList();
            assertThat(sizes).hasSizeGreaterThan(1)
                    .allSatisfy(bytes -> assertThat(bytes).isLessThanOrEqualTo(1_048_576));
        }
    }

    private TreeSet<Long> positions(FakeConsumer c) {
        TreeSet<Long> out = new TreeSet<>();
        for (FakeConsumer.Delivery d : c.accepted()) {
            for (JsonNode e : json.readTree(d.body()).path("events")) {
                out.add(e.path("position").longValue());
            }
        }
        return out;
    }
}
