package com.acme.catalog.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code http.max-body-bytes}: the key and default both services read with {@code @Value} before the record. */
class BodyLimitPropertiesTest {

    @Test
    void theKeyAndItsDefault() {
        assertThat(bind(Map.of()).maxBodyBytes()).isEqualTo(1048576);
        assertThat(bind(Map.of("http.max-body-bytes", "2048", "http.socket-read-buffer-bytes", "4096"))
                .maxBodyBytes()).isEqualTo(2048);
    }

    private static BodyLimitProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("http",
                Bindable.of(BodyLimitProperties.class));
    }
}
