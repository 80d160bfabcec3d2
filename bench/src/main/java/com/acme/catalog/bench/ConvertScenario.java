package com.acme.catalog.bench;

import java.io.BufferedWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The snapshot converter against the import of what it writes, both as an operator runs them (the resolver jar's
 * {@code --convert-snapshot} and {@code --bootstrap-import}, one child process each): a source stream of N items and
 * their PUBLIC releases (1,000 items each) is imported into a fresh database, exported through a resolver started on
 * it, converted, and the conversion imported into another fresh database. Times are the tools' own ({@code totalMs}
 * of each summary; JVM start reported apart as process seconds). Target: conversion within 0.5x the import.
 */
final class ConvertScenario implements Scenario {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final int RELEASE_ITEMS = 1000;

    @Override
    public String name() {
        return "bootstrap-convert";
    }

    @Override
    public String description() {
        return "--convert-snapshot of an export vs --bootstrap-import of its output [--items=100000]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int items = o.integer("items", 100_000);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("items", items);
        out.put("releases", (items + RELEASE_ITEMS - 1) / RELEASE_ITEMS);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("target", "convertMs <= 0.5 x importMs");
        Path dir = Files.createTempDirectory("bench-convert-");
        Path objects = Files.createDirectories(dir.resolve("objects"));
        Path source = dir.resolve("source.json");
        writeSource(source, items);
        try (TestDatabase db = TestDatabase.create("bench_convert_source");
             TestDatabase control = TestDatabase.create("bench_convert_control")) {
            WriteScenario.progress("bootstrap-convert: importing the source (%d items)", items);
            jar(db, control, List.of("--bootstrap-import", source.toString(), "--tenant", "bench", "--catalog",
                    "source", "--synchronous-commit-off"));
            String manifestKey;
            try (ServiceProcess resolver = ServiceProcess.start("resolver-service", 18083, ControlDatabase.env(
                    control, Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                            "SPRING_DATASOURCE_USERNAME", db.username(),
                            "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                            "OBJECT_STORE_URI", "file:" + objects, "SECURITY_TOKENS", "op=operator")))) {
                WriteScenario.progress("bootstrap-convert: exporting it");
                manifestKey = export(resolver);
            }
            Path events = dir.resolve("events.json");
            WriteScenario.progress("bootstrap-convert: converting %s", manifestKey);
            long t0 = System.nanoTime();
            JsonNode converted = JSON.readTree(jar(db, control, List.of("--convert-snapshot", manifestKey,
                    "--object-store", "file:" + objects, "--output", events.toString())));
            double convertProcess = (System.nanoTime() - t0) / 1e9;
            try (TestDatabase target = TestDatabase.create("bench_convert_target");
                 TestDatabase targetControl = TestDatabase.create("bench_convert_target_control")) {
                WriteScenario.progress("bootstrap-convert: importing the conversion (%d events)",
                        converted.path("events").longValue());
                long t1 = System.nanoTime();
                JsonNode imported = JSON.readTree(jar(target, targetControl, List.of("--bootstrap-import",
                        events.toString(), "--tenant", "bench", "--catalog", "target")));
                double importProcess = (System.nanoTime() - t1) / 1e9;
                double convertMs = converted.path("timings").path("totalMs").doubleValue();
                double importMs = imported.path("timings").path("totalMs").doubleValue();
                out.put("events", converted.path("events").longValue());
                out.put("outputBytes", converted.path("outputBytes").longValue());
                out.put("convertMs", convertMs);
                out.put("convertTimings", converted.path("timings"));
                out.put("convertProcessSeconds", Latencies.round(convertProcess));
                out.put("importMs", importMs);
                out.put("importCommits", imported.path("commits").intValue());
                out.put("importProcessSeconds", Latencies.round(importProcess));
                out.put("ratioConvertToImport", Math.round(convertMs / importMs * 1000) / 1000.0);
                out.put("targetMet", convertMs <= 0.5 * importMs);
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return out;
    }

    /** N items (one revision each) and PUBLIC releases naming them, {@value #RELEASE_ITEMS} items a release. */
    static void writeSource(Path file, int items) throws Exception {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("[\n");
            int n = 0;
            for (int i = 0; i < items; i++) {
                w.write((n++ == 0 ? "" : ",\n") + "{\"specversion\":\"1.0\",\"id\":\"i-" + i + "\",\"type\":"
                        + "\"ItemUpserted\",\"subject\":\"sku-" + i + "\",\"aggregatetype\":\"item\","
                        + "\"aggregateversion\":1,\"data\":{\"attributes\":{\"name\":\"Item " + i + "\",\"price\":"
                        + (i % 997) + ".5,\"brand\":\"brand-" + (i % 40) + "\",\"sizes\":[36,42]}}}");
            }
            for (int r = 0; r * RELEASE_ITEMS < items; r++) {
                StringBuilder refs = new StringBuilder();
                for (int i = r * RELEASE_ITEMS; i < Math.min(items, (r + 1) * RELEASE_ITEMS); i++) {
                    refs.append(refs.length() == 0 ? "" : ",").append("{\"itemId\":\"sku-").append(i)
                            .append("\",\"revision\":1}");
                }
                w.write(",\n{\"specversion\":\"1.0\",\"id\":\"r-" + r + "\",\"type\":\"ReleasePublished\","
                        + "\"subject\":\"rel-" + r + "\",\"aggregatetype\":\"release\",\"aggregateversion\":1,"
                        + "\"data\":{\"visibility\":\"PUBLIC\",\"items\":[" + refs + "]}}");
            }
            w.write("\n]\n");
        }
    }

    /** Runs the resolver jar in a mode against {@code db}; its stdout (the summary line). */
    private static String jar(TestDatabase db, TestDatabase control, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ServiceProcess.javaBin(), "-Xmx1g", "-XX:TieredStopAtLevel=1",
                "-jar", ServiceProcess.locate("resolver-service").toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().putAll(ControlDatabase.env(control, Map.of("SPRING_DATASOURCE_URL", db.jdbcUrl(),
                "SPRING_DATASOURCE_USERNAME", db.username(),
                "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password())));
        Process p = pb.start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(args.get(0) + " exited " + p.exitValue() + ": " + stdout);
        }
        return stdout;
    }

    private static String export(ServiceProcess resolver) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        JsonNode lease = post(http, resolver, "/v1/retention/leases", "{\"tenant\":\"bench\",\"catalog\":\"source\","
                + "\"epoch\":1,\"ttlSeconds\":3600,\"owner\":\"bench\"}");
        JsonNode started = post(http, resolver, "/v1/exports", "{\"tenant\":\"bench\",\"catalog\":\"source\","
                + "\"leaseId\":\"" + lease.path("leaseId").stringValue() + "\"}");
        while (true) {
            HttpResponse<String> st = http.send(HttpRequest.newBuilder(URI.create(resolver.baseUrl() + "/v1/exports/"
                    + started.path("exportId").stringValue())).header("Authorization", "Bearer op").build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode e = JSON.readTree(st.body());
            switch (e.path("status").stringValue()) {
                case "READY" -> {
                    return e.path("manifestKey").stringValue();
                }
                case "RUNNING" -> Thread.sleep(100);
                default -> throw new IllegalStateException("export ended " + st.body());
            }
        }
    }

    private static JsonNode post(HttpClient http, ServiceProcess resolver, String path, String body) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(resolver.baseUrl() + path))
                .header("Authorization", "Bearer op").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() / 100 != 2) {
            throw new IllegalStateException(path + " answered " + res.statusCode() + ": " + res.body());
        }
        return JSON.readTree(res.body());
    }
}
