package com.acme.catalog.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import com.acme.catalog.testsupport.PackageCycles;

import org.junit.jupiter.api.Test;

/**
 * No two packages of the service depend on each other, directly or through others: each capability can be read,
 * changed and tested from its own package and the ones it names. A cycle is broken with a port, as
 * {@code WriteGate} and {@code RelayGate} do (docs/architecture.md).
 */
class PackageCyclesTest {

    @Test
    void thePackagesFormNoCycle() {
        assertThat(PackageCycles.cycles(Path.of("src/main/java/com/acme/catalog/resolver"), "com.acme.catalog.resolver"))
                .as("package cycles").isEmpty();
    }
}
