package com.acme.catalog.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * {@code --help} lists every mode of the jar and answers without starting anything: the dispatcher runs before
 * Spring, so these calls would fail (no database at the URL given) if anything opened a connection.
 */
class JarModesTest {

    private static final String NO_DATABASE = "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/none";

    @Test
    void helpListsEveryModeAndStartsNothing() {
        Run run = run("--help", NO_DATABASE);
        assertThat(run.exit()).isZero();
        for (JarModes.Mode m : JarModes.Mode.values()) {
            assertThat(run.out()).as(m.name()).contains(m.usage());
            if (m.flag() != null) {
                assertThat(run.out()).contains(m.flag());
            }
        }
        assertThat(run.out()).contains("--bootstrap-import").contains("--convert-snapshot").contains("--help");
        assertThat(run("-h").out()).isEqualTo(run.out());
    }

    @Test
    void helpWithAModesFlagPrintsThatModesUsageOnly() {
        Run run = run("--convert-snapshot", "x", "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("--convert-snapshot SOURCE --output FILE")
                .doesNotContain("--bootstrap-import FILE");
        assertThat(run("--bootstrap-import", "--help").out()).contains("--bootstrap-import FILE --tenant T")
                .doesNotContain("--convert-snapshot");
    }

    @Test
    void twoModesAreAUsageErrorAndNoModeIsTheService() {
        Run two = run("--bootstrap-import", "a.json", "--convert-snapshot", "b");
        assertThat(two.exit()).isEqualTo(JarModes.EXIT_USAGE);
        assertThat(two.err()).contains("choose one mode");
        assertThat(JarModes.run(new String[] {"--server.port=0"}, System.out, System.err)).isNull();
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Integer exit = JarModes.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(Integer exit, String out, String err) {
    }
}
