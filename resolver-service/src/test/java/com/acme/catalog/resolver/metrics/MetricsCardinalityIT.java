package com.acme.catalog.resolver.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract's metric cardinality (docs/metrics.md): after writes to {@value #STREAMS} streams, each with a lagging consumer (so each
 * is blocked, the most series a stream has without a lease or a rollback), no histogram or timer series carries a
 * stream label, only the metrics an operator acts on per stream do, and they are at most 5 per stream plus one
 * consumer-lag series per consumer.
 */
@TestPropertySource(properties = {"retention.status.enabled=true", "retention.status.refresh-interval=PT0.3S",
        "retention.prune.enabled=false"})
class MetricsCardinalityIT extends ResolverIT {

    static final int STREAMS = 50;
    /** The metrics that may carry {@code tenant} and {@code catalog} (docs/metrics.md). */
    static final Set<String> PER_STREAM = Set.of("resolver_stream_position", "resolver_retention_retained_events",
            "resolver_retention_blocked", "resolver_outbox_pruned_through", "resolver_consumer_lag_events",
            "resolver_leases_next_expiry_timestamp_seconds", "resolver_history_rolled_back");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{(.*)} \\S+$");
    private static final Pattern CATALOG = Pattern.compile("(?:^|,)catalog=\"([^\"]*)\"");

    @Autowired
    StreamWriter writer;
    @Autowired
    JdbcClient jdbc;

    @Test
    void manyStreamsCostAtMostFiveSeriesEachAndNoHistogramIsPerStream() {
        for (int i = 0; i < STREAMS; i++) {
            StreamId s = new StreamId("t" + (i % 3), "card-" + i);
            writer.writeAll(s, List.of(List.of(ChangeParser.upsertItem("a",
                    JsonMapper.builder().build().readTree("{\"attributes\":{}}")))));
            // another instance's consumer that has not caught up: the stream is blocked by it
            jdbc.sql("""
                    INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, registered_by)
                    VALUES ('lagging', ?, ?, 1, 0, 'token-9')
                    """).params(s.tenant(), s.catalog()).update();
        }
        // the status refresh has seen every stream and its consumer
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String text = scrape();
            for (String series : List.of("resolver_retention_retained_events{", "resolver_consumer_lag_events{")) {
                assertThat(text.lines().filter(l -> l.startsWith(series) && l.contains("catalog=\"card-")))
                        .as(series).hasSize(STREAMS);
            }
        });

        String text = scrape();
        Map<String, Integer> perStream = perStream(text);
        for (String line : text.lines().toList()) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches() || !CATALOG.matcher(m.group(2)).find()) {
                continue;
            }
            String name = m.group(1);
            assertThat(name).as(line).doesNotEndWith("_bucket").doesNotEndWith("_count").doesNotEndWith("_sum")
                    .doesNotEndWith("_max").isIn(PER_STREAM);
        }
        // position, retained events, pruned-through while blocked, blocked by the consumer and by unpublished events
        assertThat(perStream).hasSize(STREAMS)
                .allSatisfy((stream, series) -> assertThat(series).as(stream).isLessThanOrEqualTo(5));
    }

    /** Per catalog (each stream here has its own), how many series carry it, consumer lag not counted. */
    private static Map<String, Integer> perStream(String text) {
        Map<String, Integer> out = new HashMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches() || m.group(1).equals("resolver_consumer_lag_events")) {
                continue;
            }
            Matcher c = CATALOG.matcher(m.group(2));
            if (c.find() && c.group(1).startsWith("card-")) {
                out.merge(c.group(1), 1, Integer::sum);
            }
        }
        return out;
    }

    private String scrape() {
        return client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
    }
}
