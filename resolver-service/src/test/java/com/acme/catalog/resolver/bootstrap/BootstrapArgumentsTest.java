package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class BootstrapArgumentsTest {

    @Test
    void defaultsAndPassThrough() {
        BootstrapArguments a = BootstrapArguments.parse(new String[] {"--bootstrap-import", "events.json",
                "--tenant=acme", "--catalog", "shoes", "--spring.datasource.url=jdbc:postgresql://h/db"});
        assertThat(a.file()).isEqualTo(Path.of("events.json"));
        assertThat(a.stream().tenant()).isEqualTo("acme");
        assertThat(a.stream().catalog()).isEqualTo("shoes");
        assertThat(a.options()).isEqualTo(ImportOptions.defaults());
        assertThat(a.options().batched()).isTrue();
        assertThat(a.springArgs()).containsExactly("--spring.datasource.url=jdbc:postgresql://h/db");
    }

    @Test
    void everyOption() {
        BootstrapArguments a = BootstrapArguments.parse(new String[] {"--bootstrap-import=f.json", "--tenant", "t",
                "--catalog", "c", "--chunk-events", "500", "--chunk-bytes=4096", "--max-event-bytes", "2048",
                "--synchronous-commit-off", "--diagnose-failed-chunk", "--unbatched-statements", "--reset",
                "a failed import"});
        assertThat(a.options()).isEqualTo(new ImportOptions(500, 4096, 2048, true, true, false, "a failed import",
                null));
    }

    @Test
    void oneEventPerChunkIsTheReferencePath() {
        BootstrapArguments a = BootstrapArguments.parse(new String[] {"--bootstrap-import", "f", "--tenant", "t",
                "--catalog", "c", "--chunk-events", "1"});
        assertThat(a.options().batched()).isFalse();
    }

    @Test
    void refusesWhatItCannotUse() {
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "t")).hasMessageContaining("--catalog");
        assertThatThrownBy(() -> parse("--tenant", "t", "--catalog", "c", "--bootstrap-import"))
                .hasMessageContaining("needs a value");
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "t", "--catalog", "c",
                "--chunk-events", "501")).hasMessageContaining("1-500");
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "t", "--catalog", "c",
                "--chunk-events", "0")).hasMessageContaining("1-500");
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "t", "--catalog", "c",
                "--chunk-bytes", "lots")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "T", "--catalog", "c"))
                .hasMessageContaining("tenant");
        assertThatThrownBy(() -> parse("--bootstrap-import", "f", "--tenant", "t", "--catalog", "c", "extra"))
                .hasMessageContaining("unknown argument extra");
    }

    @Test
    void recognisesTheMode() {
        assertThat(BootstrapCommand.requested(new String[] {"--bootstrap-import", "f"})).isTrue();
        assertThat(BootstrapCommand.requested(new String[] {"--bootstrap-import=f"})).isTrue();
        assertThat(BootstrapCommand.requested(new String[] {"--server.port=1"})).isFalse();
    }

    private static BootstrapArguments parse(String... args) {
        return BootstrapArguments.parse(args);
    }
}
