package com.acme.catalog.testsupport;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A service started from its packaged jar, as an operator would ({@code java -jar}), stopped on close. */
public final class ServiceProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private ServiceProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts {@code <module>/target/<module>.jar} with the environment given and waits until healthy. */
    public static ServiceProcess start(String module, int port, Map<String, String> env) throws Exception {
        Path jar = locate(module);
        Path log = Files.createTempFile(module + "-", ".log");
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx1g", "-jar", jar.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("SERVER_PORT", Integer.toString(port));
        ServiceProcess sp = new ServiceProcess(pb.start(), port, log);
        sp.awaitHealthy(Duration.ofSeconds(180));
        return sp;
    }

    /** The operating-system process id (benchmarks read its CPU time). */
    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public String baseUrl() {
        return "http://localhost:" + port;
    }

    private void awaitHealthy(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("service exited; log: " + log + "\n" + tail());
            }
            try {
                var res = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("service not healthy in " + timeout + "; log: " + log + "\n" + tail());
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    public static Path locate(String module) {
        for (Path base = Path.of("").toAbsolutePath(); base != null; base = base.getParent()) {
            Path jar = base.resolve(module).resolve("target").resolve(module + ".jar");
            if (Files.exists(jar)) {
                return jar;
            }
        }
        throw new IllegalStateException(module + ".jar not found: run mvn -B -DskipTests package first");
    }

    public static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java" + (File.separatorChar == '\\' ? ".exe" : ""))
                .toString();
    }

    /** The service's combined stdout and stderr. */
    public Path log() {
        return log;
    }

    /** Kills the process at once (SIGKILL): no shutdown hooks, no graceful stop, like a crash. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
