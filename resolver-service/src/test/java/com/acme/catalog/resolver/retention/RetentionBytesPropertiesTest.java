package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.util.unit.DataSize;

/** {@code retention.bytes.*}: the defaults, sizes with units, and values that fail the start naming their key. */
class RetentionBytesPropertiesTest {

    @Test
    void defaultsAreATenGigabyteBudgetA64MegabyteStreamThresholdAndAMinute() {
        RetentionProperties p = bind(Map.of());
        assertThat(p.bytes().budget()).isEqualTo(DataSize.ofGigabytes(10));
        assertThat(p.bytes().streamThreshold()).isEqualTo(DataSize.ofMegabytes(64));
        assertThat(p.bytes().measureInterval()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void sizesTakeUnits() {
        RetentionProperties p = bind(Map.of("retention.bytes.budget", "512MB", "retention.bytes.stream-threshold", "0B"));
        assertThat(p.bytes().budget().toBytes()).isEqualTo(512L * 1024 * 1024);
        assertThat(p.bytes().streamThreshold().toBytes()).isZero();
    }

    @Test
    void aBudgetOfNothingOrANegativeIntervalIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> new RetentionProperties.Bytes(DataSize.ofBytes(0), DataSize.ofBytes(0),
                Duration.ofMinutes(1))).hasMessageContaining("retention.bytes.budget");
        assertThatThrownBy(() -> new RetentionProperties.Bytes(DataSize.ofBytes(1), DataSize.ofBytes(-1),
                Duration.ofMinutes(1))).hasMessageContaining("retention.bytes.stream-threshold");
        assertThatThrownBy(() -> new RetentionProperties.Bytes(DataSize.ofBytes(1), DataSize.ofBytes(0),
                Duration.ofSeconds(-1))).hasMessageContaining("retention.bytes.measure-interval");
    }

    private static RetentionProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("retention",
                RetentionProperties.class);
    }
}
