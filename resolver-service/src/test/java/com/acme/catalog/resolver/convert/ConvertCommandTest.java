package com.acme.catalog.resolver.convert;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The {@code --convert-snapshot} command line: exit codes, one JSON line on stdout, progress on stderr. */
class ConvertCommandTest {

    @TempDir
    Path dir;

    @Test
    void convertsAPerTableSnapshotAndPrintsItsSummary() throws IOException {
        Path tables = Files.createDirectories(dir.resolve("tables"));
        Files.writeString(tables.resolve("items.jsonl"), "{\"itemId\":\"a\",\"attributes\":{\"n\":1}}\n");
        Path out = dir.resolve("events.json");

        Run run = run("--convert-snapshot", tables.toString(), "--output=" + out, "--seed", "3");
        assertThat(run.exit()).as(run.err()).isZero();
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = JsonMapper.builder().build().readValue(run.out(), Map.class);
        assertThat(summary).containsEntry("status", "CONVERTED").containsEntry("events", 1).containsEntry("seed", 3);
        assertThat(run.out().lines().count()).isEqualTo(1);
        assertThat(run.err()).contains("[convert-snapshot] 1 events written");
        assertThat(Files.readString(out)).contains("\"subject\":\"a\"");
    }

    @Test
    void aBadSnapshotExitsThreeAndAUsageErrorTwo() throws IOException {
        Path tables = Files.createDirectories(dir.resolve("bad"));
        Files.writeString(tables.resolve("items.jsonl"), "{\"itemId\":\"a\"}\n");
        Run rejected = run("--convert-snapshot", tables.toString(), "--output", dir.resolve("e.json").toString());
        assertThat(rejected.exit()).isEqualTo(ConvertCommand.EXIT_REJECTED);
        assertThat(rejected.out()).contains("\"status\":\"REJECTED\"").contains("items.jsonl line 1");
        assertThat(dir.resolve("e.json")).doesNotExist();

        Run usage = run("--convert-snapshot", tables.toString());
        assertThat(usage.exit()).isEqualTo(ConvertCommand.EXIT_USAGE);
        assertThat(usage.err()).contains("--output FILE is required").contains("usage:");
        assertThat(usage.out()).isEmpty();
        assertThat(run("--convert-snapshot", "x", "--output", "y", "--seed", "z").err())
                .contains("--seed must be a whole number");
        Run missing = run("--convert-snapshot", dir.resolve("nothing").toString(), "--output", "y");
        assertThat(missing.exit()).isEqualTo(ConvertCommand.EXIT_REJECTED);
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = ConvertCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Run(int exit, String out, String err) {
    }
}
