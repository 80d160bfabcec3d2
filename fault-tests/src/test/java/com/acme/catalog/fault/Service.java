package com.acme.catalog.fault;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.testsupport.ServiceProcess;

/**
 * A service from its jar ({@code java -jar}, as {@link ServiceProcess}), with what the fault suite needs on top: a
 * start timeout for a loaded machine ({@code -Dfault.start-timeout-s}, 420 s), JVM flags that start fast on few
 * cores, and every process it ever started stopped on close or JVM exit, so a failed restart leaves no orphan.
 */
final class Service {

    private static final List<Process> ALL = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Service::destroyAll, "stop-fault-services"));
    }

    private final Process process;
    final String name;
    final int port;
    final Path log;

    private Service(String name, Process process, int port, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Exits while starting that a supervisor (systemd, Kubernetes) answers by starting the process again. */
    private static final int START_RETRIES = 5;

    /**
     * Starts the service and waits for it to be healthy. A process that exits while starting is started again, as
     * its supervisor would: the fault threads cut connections and restart PostgreSQL meanwhile, and a service whose
     * start-up migration loses its connection exits by design (it never serves half-migrated).
     */
    static Service start(String module, String name, int port, Map<String, String> env) throws Exception {
        for (int tries = 1; ; tries++) {
            try {
                return startOnce(module, name, port, env);
            } catch (ExitedWhileStarting e) {
                if (tries > START_RETRIES) {
                    throw e;
                }
                System.out.println("[fault] " + name + " exited while starting (" + tries + "), started again as a "
                        + "supervisor would: " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
    }

    /** The process ended before it was healthy. */
    static final class ExitedWhileStarting extends IllegalStateException {
        ExitedWhileStarting(String message) {
            super(message);
        }
    }

    private static Service startOnce(String module, String name, int port, Map<String, String> env) throws Exception {
        Path jar = ServiceProcess.locate(module);
        Path log = Files.createTempFile("fault-" + name + "-", ".log");
        ProcessBuilder pb = new ProcessBuilder(ServiceProcess.javaBin(), "-Xmx512m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-jar", jar.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("SERVER_PORT", Integer.toString(port));
        Process p = pb.start();
        ALL.add(p);
        Service s = new Service(name, p, port, log);
        s.awaitHealthy(Duration.ofSeconds(Long.getLong("fault.start-timeout-s", 420)));
        return s;
    }

    private void awaitHealthy(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new ExitedWhileStarting(name + " exited; log: " + log + "\n" + tail());
            }
            try {
                var res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        process.destroyForcibly();
        throw new IllegalStateException(name + " not healthy in " + timeout + "; log: " + log + "\n" + tail());
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** SIGKILL: no shutdown hooks, no graceful stop, like a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }

    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    static void destroyAll() {
        for (Process p : ALL) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
