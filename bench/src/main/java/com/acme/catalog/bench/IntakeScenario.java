package com.acme.catalog.bench;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.objectstore.FileSystemObjectStore;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * Evidence intake throughput: {@code POST /v1/tenants/{tenant}/evidence} of distinct bodies (1 MiB by default)
 * through the resolver jar, against the floor it adds to, measured in the same run: a raw {@link ObjectStore#put}
 * of the same bytes into the same directory by the benchmark process (the store's own SHA-256 and size included, as
 * in intake). Order: one warm-up of each, then raw, intake, raw; the baseline is the mean of the two raw runs.
 * Target: intake ≥ 0.8× raw.
 */
final class IntakeScenario implements Scenario {

    @Override
    public String name() {
        return "intake";
    }

    @Override
    public String description() {
        return "evidence intake MiB/s vs raw object-store puts of the same bytes [--count=200 --size=1048576 "
                + "--threads=4]";
    }

    @Override
    public Map<String, Object> run(Options o) throws Exception {
        int count = o.integer("count", 200);
        int size = o.integer("size", 1024 * 1024);
        int threads = o.integer("threads", 4);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("count", count);
        out.put("bytes", size);
        out.put("threads", threads);
        Path dir = Files.createTempDirectory("bench-intake");
        byte[] template = new byte[size];
        new Random(1).nextBytes(template);
        try (TestDatabase db = TestDatabase.create("bench_intake");
             ServiceProcess resolver = ServiceProcess.start("resolver-service", freePort(), Map.of(
                     "SPRING_DATASOURCE_URL", db.jdbcUrl(),
                     "SPRING_DATASOURCE_USERNAME", db.username(),
                     "SPRING_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                     "SECURITY_TOKENS", "w=writer",
                     "OBJECT_STORE_URI", "file:" + dir,
                     "EVIDENCE_RETENTION_ENABLED", "false"))) {
            ObjectStore raw = new FileSystemObjectStore(dir);
            HttpClient http = HttpClient.newHttpClient();
            AtomicInteger serial = new AtomicInteger();
            Operation put = () -> {
                byte[] body = distinct(template, serial.incrementAndGet());
                raw.put("raw/" + serial.get(), "application/octet-stream", s -> s.write(body));
            };
            Operation intake = () -> {
                byte[] body = distinct(template, serial.incrementAndGet());
                HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(resolver.baseUrl()
                                + "/v1/tenants/bench/evidence")).header("Authorization", "Bearer w")
                        .header("Content-Type", "application/octet-stream")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() != 201) {
                    throw new IllegalStateException("intake answered " + res.statusCode() + ": " + res.body());
                }
            };
            int warm = Math.max(1, count / 10);
            WriteScenario.progress("warming up: %d raw puts and %d intakes", warm, warm);
            measure(put, warm, threads);
            measure(intake, warm, threads);
            WriteScenario.progress("raw puts: %d x %d bytes, %d threads", count, size, threads);
            Map<String, Object> raw1 = measure(put, count, threads);
            WriteScenario.progress("intake: %d x %d bytes, %d threads", count, size, threads);
            Map<String, Object> viaIntake = measure(intake, count, threads);
            WriteScenario.progress("raw puts again");
            Map<String, Object> raw2 = measure(put, count, threads);
            double rawMiB = (mib(raw1, size) + mib(raw2, size)) / 2;
            double intakeMiB = mib(viaIntake, size);
            out.put("rawPut", List.of(raw1, raw2));
            out.put("intake", viaIntake);
            out.put("rawMiBPerSecond", Latencies.round(rawMiB));
            out.put("intakeMiBPerSecond", Latencies.round(intakeMiB));
            out.put("ratioIntakeToRaw", Latencies.round(intakeMiB / rawMiB));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return out;
    }

    /** The template with the serial number in its first bytes, so no two bodies dedupe. */
    private static byte[] distinct(byte[] template, int serial) {
        byte[] b = template.clone();
        ByteBuffer.wrap(b).putInt(0, serial);
        return b;
    }

    private static double mib(Map<String, Object> summary, int size) {
        return ((Number) summary.get("perSecond")).doubleValue() * size / (1024.0 * 1024.0);
    }

    private static Map<String, Object> measure(Operation op, int count, int threads) throws Exception {
        Latencies lat = new Latencies();
        AtomicInteger left = new AtomicInteger(count);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                while (left.getAndDecrement() > 0) {
                    long start = System.nanoTime();
                    op.run();
                    lat.add(System.nanoTime() - start);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        long wall = System.nanoTime() - t0;
        pool.shutdown();
        return lat.summary(wall);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @FunctionalInterface
    private interface Operation {
        void run() throws Exception;
    }
}
