package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.inbox.*}: the keys and defaults of before the record. */
class InboxPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.inbox", InboxProperties.class, Map.of()))
                .isEqualTo(new InboxProperties(1000, 100_000, true));
        assertThat(Bound.bind("product.inbox", InboxProperties.class, Map.of("product.inbox.max-events", "5",
                "product.inbox.max-ahead", "10", "product.inbox.auto-start-streams", "false")))
                .isEqualTo(new InboxProperties(5, 10, false));
        assertThatThrownBy(() -> Bound.bind("product.inbox", InboxProperties.class,
                Map.of("product.inbox.max-ahead", "0"))).rootCause().hasMessageContaining("product.inbox.max-ahead");
    }
}
