package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;

import org.junit.jupiter.api.Test;

/** The wire limit is exact and counted in UTF-8 bytes: at the limit passes, one byte over is 400. */
class WireLimitTest {

    @Test
    void aWireOfExactlyTheLimitPassesAndOneByteMoreIsRefused() {
        String ascii = "x".repeat(JsonLimits.MAX_EVENT_WIRE_BYTES);
        assertThatCode(() -> EventAppender.requireDeliverable(ascii, "item", "a")).doesNotThrowAnyException();
        assertThatThrownBy(() -> EventAppender.requireDeliverable(ascii + "x", "item", "a"))
                .isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ProblemCode.INVALID_BODY))
                .hasMessageContaining(String.valueOf(JsonLimits.MAX_EVENT_WIRE_BYTES + 1));
    }

    @Test
    void multiByteCharactersCountAsTheirBytes() {
        // 3 bytes each: a third of the limit in characters is exactly the limit in bytes
        String euros = "€".repeat(JsonLimits.MAX_EVENT_WIRE_BYTES / 3) + "x".repeat(JsonLimits.MAX_EVENT_WIRE_BYTES % 3);
        assertThatCode(() -> EventAppender.requireDeliverable(euros, "item", "a")).doesNotThrowAnyException();
        assertThatThrownBy(() -> EventAppender.requireDeliverable(euros + "é", "item", "a"))
                .isInstanceOf(ApiException.class);
    }
}
