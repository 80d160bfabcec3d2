package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/** The evidence prefix never overlaps another capability's, and nonsense settings refuse to start. */
class EvidencePropertiesTest {

    private static EvidenceProperties prefix(String keyPrefix) {
        return new EvidenceProperties(DataSize.ofMegabytes(20), keyPrefix,
                new EvidenceProperties.Retention(true, Duration.ofHours(1), Duration.ofDays(30), 500, true));
    }

    @Test
    void overlappingPrefixesAreDetected() {
        assertThat(prefix("evidence").overlaps("exports")).isFalse();
        assertThat(prefix("evidence").overlaps("evidence-archive")).isFalse();
        assertThat(prefix("exports/evidence").overlaps("exports")).isTrue();
        assertThat(prefix("private").overlaps("private/exports")).isTrue();
        assertThat(prefix("exports").overlaps("exports")).isTrue();
    }

    @Test
    void nonsenseIsRefused() {
        assertThatThrownBy(() -> prefix("/evidence")).hasMessageContaining("key-prefix");
        assertThatThrownBy(() -> prefix("evidence/")).hasMessageContaining("key-prefix");
        assertThatThrownBy(() -> new EvidenceProperties.Retention(true, Duration.ZERO, Duration.ofDays(1), 500, true))
                .hasMessageContaining("interval");
        assertThatThrownBy(() -> new EvidenceProperties.Retention(true, Duration.ofHours(1), Duration.ofDays(-1), 500,
                true)).hasMessageContaining("window");
    }
}
