package com.acme.catalog.product.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The contract: {@code product_old_epoch_deliveries_total} exists at 0 for every stream the product knows before the
 * first old-epoch event arrives (the OldEpochDeliveries alert needs a series to see the first increase).
 */
@TestPropertySource(properties = "product.metrics.known-streams-ms=200")
class KnownStreamCountersIT extends ProductIT {

    @Test
    void aKnownStreamsOldEpochCounterIsThereAtZero() {
        // a stream known only from its (failed) rebuild row: no delivery, no old-epoch event ever
        jdbc.sql("""
                INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, error)
                VALUES ('01900000-0000-7000-8000-0000000000aa', 'acme', 'known', 'FAILED', 'test')
                """).update();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(client(null).get().uri("/actuator/prometheus").retrieve().body(String.class))
                        .containsPattern("product_old_epoch_deliveries_total\\{[^}]*catalog=\"known\"[^}]*\\} 0\\.0"));
    }
}
