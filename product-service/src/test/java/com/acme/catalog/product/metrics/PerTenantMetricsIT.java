package com.acme.catalog.product.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * {@code product.metrics.per-tenant=true}: {@code product_old_epoch_deliveries_total} is one per tenant, never per
 * catalog, and a known tenant's exists at 0 before its first increment.
 */
@TestPropertySource(properties = {"product.metrics.per-tenant=true", "product.completeness.refresh-interval=PT0.3S"})
class PerTenantMetricsIT extends ProductIT {

    @Test
    void theOldEpochCounterIsPerTenantAndAKnownTenantsIsAtZero() {
        for (StreamId s : List.of(new StreamId("pt-a", "one"), new StreamId("pt-a", "two"),
                new StreamId("pt-b", "one"))) {
            CatalogHistory h = new CatalogHistory(new Random(1));
            assertThat(deliver("r", List.of(new ChainWriter(s, 1, new Random(1)).appendAll(List.of(
                    h.upsertItem("sku-1", CatalogHistory.attributes("Glove", 1, "black")))).get(0).delivered()))
                    .getStatusCode().value()).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
            assertThat(text.lines().filter(l -> l.startsWith("product_old_epoch_deliveries_total{")).toList())
                    .contains("product_old_epoch_deliveries_total{application=\"product\",tenant=\"pt-a\"} 0.0",
                            "product_old_epoch_deliveries_total{application=\"product\",tenant=\"pt-b\"} 0.0")
                    .noneMatch(l -> l.contains("catalog="));
        });
    }
}
