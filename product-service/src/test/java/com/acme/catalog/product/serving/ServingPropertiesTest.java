package com.acme.catalog.product.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import com.acme.catalog.product.support.Bound;

import org.junit.jupiter.api.Test;

/** {@code product.serving.*}: the key and default of before the record. */
class ServingPropertiesTest {

    @Test
    void defaultsAndKeys() {
        assertThat(Bound.bind("product.serving", ServingProperties.class, Map.of()).maxSearchLimit()).isEqualTo(100);
        assertThat(Bound.bind("product.serving", ServingProperties.class,
                Map.of("product.serving.max-search-limit", "7")).maxSearchLimit()).isEqualTo(7);
        assertThatThrownBy(() -> Bound.bind("product.serving", ServingProperties.class,
                Map.of("product.serving.max-search-limit", "0")))
                .rootCause().hasMessageContaining("product.serving.max-search-limit");
    }
}
