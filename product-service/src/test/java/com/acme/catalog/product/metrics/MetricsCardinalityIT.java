package com.acme.catalog.product.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The contract's metric cardinality (docs/metrics.md): after deliveries to {@value #STREAMS} streams (each with an early, parked event,
 * its progress reported and its completeness refreshed), no histogram or timer series carries a stream label, only
 * the metrics an operator acts on per stream do, at most 5 per stream; the counters that count every stream's
 * work exist once per instance, at 0 before their first increment.
 */
@TestPropertySource(properties = "product.completeness.refresh-interval=PT0.3S")
class MetricsCardinalityIT extends ProductIT {

    static final int STREAMS = 50;
    /** The metrics that may carry {@code tenant} and {@code catalog} (docs/metrics.md). */
    static final Set<String> PER_STREAM = Set.of("product_applied_position", "product_apply_lag_events",
            "product_parked_events", "product_completeness_state", "product_rebuild_phase");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{(.*)} \\S+$");
    private static final Pattern CATALOG = Pattern.compile("(?:^|,)catalog=\"([^\"]*)\"");

    @Test
    void manyStreamsCostAtMostFiveSeriesEachAndNoHistogramIsPerStream() {
        for (int i = 0; i < STREAMS; i++) {
            StreamId s = new StreamId("t" + (i % 3), "card-" + i);
            CatalogHistory h = new CatalogHistory(new Random(i));
            List<Event> chain = new ChainWriter(s, 1, new Random(i)).appendAll(List.of(
                    h.upsertItem("sku-1", CatalogHistory.attributes("Glove", 1, "black")),
                    h.upsertItem("sku-2", CatalogHistory.attributes("Glove", 2, "black")),
                    h.upsertItem("sku-3", CatalogHistory.attributes("Glove", 3, "black"))));
            List<String> delivered = new ArrayList<>();
            delivered.add(chain.get(0).delivered());
            delivered.add(chain.get(2).delivered()); // early: parked behind position 2
            assertThat(deliver("r", delivered).getStatusCode().value()).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(scrape().lines().filter(l -> l.startsWith("product_completeness_state{")
                        && l.contains("catalog=\"card-"))).hasSize(STREAMS));

        String text = scrape();
        Map<String, Integer> perStream = new HashMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Matcher c = CATALOG.matcher(m.group(2));
            if (!c.find()) {
                continue;
            }
            assertThat(m.group(1)).as(line).doesNotEndWith("_bucket").doesNotEndWith("_count")
                    .doesNotEndWith("_sum").doesNotEndWith("_max").isIn(PER_STREAM);
            if (c.group(1).startsWith("card-")) {
                perStream.merge(c.group(1), 1, Integer::sum);
            }
        }
        assertThat(perStream).hasSize(STREAMS)
                .allSatisfy((stream, series) -> assertThat(series).as(stream).isLessThanOrEqualTo(5));
        assertThat(text).contains(OLD_EPOCH_DELIVERIES + " 0.0");
    }

    private String scrape() {
        return client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
    }
}
