package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.resolver.ResolverApplication;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;
import com.acme.catalog.testsupport.TestDatabase;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The command-line mode, in-process: exit codes, one JSON summary on stdout, progress on stderr, and no web
 * server (the port given to Spring is held by the test, so starting one would fail the run).
 */
class BootstrapCommandIT {

    private static TestDatabase db;
    private static TestDatabase control;

    @TempDir
    Path dir;

    @BeforeAll
    static void database() {
        db = TestDatabase.create("BootstrapCommandIT");
        control = TestDatabase.create("BootstrapCommandIT_control");
    }

    @AfterAll
    static void drop() {
        db.close();
        control.close();
    }

    @Test
    void importsThenRefusesAFullDestinationThenRejectsABadFile() throws IOException {
        Path events = dir.resolve("events.json");
        SnapshotEventsGenerator.write(events, 500, 42);
        try (ServerSocket taken = new ServerSocket(0)) {
            Run ok = run(taken.getLocalPort(), "--bootstrap-import", events.toString(), "--tenant", "acme",
                    "--catalog", "cli", "--chunk-events", "64", "--synchronous-commit-off");
            assertThat(ok.exit()).as(ok.err()).isZero();
            Map<String, Object> summary = ok.json();
            assertThat(summary).containsEntry("status", "COMPLETED").containsEntry("events", 500)
                    .containsEntry("commits", 8).containsEntry("lastPosition", 500);
            assertThat(ok.err()).contains("[bootstrap-import] chunk 8: 500/500 events");

            Run again = run(taken.getLocalPort(), "--bootstrap-import", events.toString(), "--tenant", "acme",
                    "--catalog", "cli");
            assertThat(again.exit()).as(again.err()).isEqualTo(BootstrapCommand.EXIT_REFUSED);
            assertThat(again.json()).containsEntry("status", "REFUSED").containsEntry("code", "DESTINATION_NOT_EMPTY");

            Path bad = dir.resolve("bad.json");
            List<String> lines = new ArrayList<>(Files.readAllLines(events));
            lines.set(3, lines.get(3).replace("\"specversion\":\"1.0\"", "\"specversion\":\"2.0\""));
            Files.write(bad, lines);
            Run rejected = run(taken.getLocalPort(), "--bootstrap-import=" + bad, "--tenant=acme", "--catalog=cli-bad");
            assertThat(rejected.exit()).as(rejected.err()).isEqualTo(BootstrapCommand.EXIT_REJECTED);
            assertThat(rejected.json()).containsEntry("status", "REJECTED").containsEntry("code", "INVALID_BODY")
                    .containsEntry("index", 2);
        }
    }

    @Test
    void usageErrorsExitBeforeStartingAnything() {
        Run run = run(0, "--bootstrap-import", dir.resolve("missing.json").toString(), "--tenant", "acme",
                "--catalog", "c");
        assertThat(run.exit()).isEqualTo(BootstrapCommand.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("cannot read").contains("usage:");
    }

    private static Run run(int port, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--spring.datasource.url=" + db.jdbcUrl());
        all.add("--spring.datasource.username=" + db.username());
        all.add("--spring.datasource.password=" + (db.password() == null ? "" : db.password()));
        all.add("--control.datasource.url=" + control.jdbcUrl());
        all.add("--control.datasource.username=" + control.username());
        all.add("--control.datasource.password=" + (control.password() == null ? "" : control.password()));
        all.add("--server.port=" + port);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = BootstrapCommand.run(ResolverApplication.class, all.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(int exit, String out, String err) {
        @SuppressWarnings("unchecked")
        Map<String, Object> json() {
            assertThat(out.lines().count()).as("one summary line on stdout: " + out).isEqualTo(1);
            return JsonMapper.builder().build().readValue(out, Map.class);
        }
    }
}
