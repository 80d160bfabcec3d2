package com.acme.catalog.bench;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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

import com.acme.catalog.platform.objectstore.FileSystemObjectStore;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * Evidence intake throughput: {@code POST /v1/tenants/{tenant}/evidence} of distinct bodies (1 MiB by default)
 * through the resolver jar, against the floor it adds to, measured in the same run: a raw {@link ObjectStore#put}
 * of the same bytes into the same directory by the benchmark process (the store's own SHA-256 and size included, as
 * in intake). Order: one warm-up of each ({@code --warmup}, default max(200, count/4)), then raw, intake, raw; the
 * baseline is the mean of the two raw runs. Also reports the CPU milliseconds per MiB of each side (the bench JVM
 * during the raw puts; resolver, client and the database's backends during intake). Target: intake ≥ 0.8× raw.
 */
final class IntakeScenario implements Scenario {

    @Override
    public String name() {
        return "intake";
    }

    @Override
    public String description() {
        return "evidence intake MiB/s vs raw object-store puts of the same bytes [--count=200 --size=1048576 "
                + "--threads=4 --warmup=max(200,count/4)]";
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
            URI intakeUri = URI.create(resolver.baseUrl() + "/v1/tenants/bench/evidence");
            AtomicInteger serial = new AtomicInteger();
            Operation put = () -> {
                byte[] body = distinct(template, serial.incrementAndGet());
                raw.put("raw/" + serial.get(), "application/octet-stream", s -> s.write(body));
            };
            Operation intake = () -> post(intakeUri, distinct(template, serial.incrementAndGet()));
            // long enough for both JVMs' JIT to settle (a tenth of the count left intake cold at --count=200)
            int warm = o.integer("warmup", Math.max(200, count / 4));
            out.put("loadAverageAtStart", ProcessCpu.loadAverage());
            WriteScenario.progress("warming up: %d raw puts and %d intakes", warm, warm);
            measure(put, warm, threads);
            measure(intake, warm, threads);
            long self = ProcessHandle.current().pid();
            WriteScenario.progress("raw puts: %d x %d bytes, %d threads", count, size, threads);
            long rawCpu0 = ProcessCpu.millis(self);
            Map<String, Object> raw1 = measure(put, count, threads);
            long rawCpu1 = ProcessCpu.millis(self);
            WriteScenario.progress("intake: %d x %d bytes, %d threads", count, size, threads);
            long resolverCpu0 = ProcessCpu.millis(resolver.pid());
            long postgresCpu0 = ProcessCpu.databaseBackendsMillis(db);
            Map<String, Object> viaIntake = measure(intake, count, threads);
            long clientCpu = ProcessCpu.millis(self) - rawCpu1;
            long resolverCpu = ProcessCpu.millis(resolver.pid()) - resolverCpu0;
            long postgresCpu = ProcessCpu.databaseBackendsMillis(db) - postgresCpu0;
            WriteScenario.progress("raw puts again");
            Map<String, Object> raw2 = measure(put, count, threads);
            // CPU milliseconds per MiB stored: on a machine of few cores the intake side also pays for the client
            double mibs = count * (size / (1024.0 * 1024.0));
            Map<String, Object> cpu = new LinkedHashMap<>();
            cpu.put("rawPutBenchJvm", Latencies.round((rawCpu1 - rawCpu0) / mibs));
            cpu.put("intakeResolverJvm", Latencies.round(resolverCpu / mibs));
            cpu.put("intakeClientBenchJvm", Latencies.round(clientCpu / mibs));
            cpu.put("intakeDatabaseBackends", Latencies.round(postgresCpu / mibs));
            out.put("cpuMillisPerMiB", cpu);
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

    /**
     * One intake over HTTP/1.1 with the body streamed at its declared length ({@code HttpURLConnection}, keep-alive):
     * the JDK {@code HttpClient} spent about twice the CPU per MiB sent (its HTTP/2 upgrade attempt on
     * {@code http://}, 16 KiB buffers through its reactive pipeline), on the same cores as the resolver.
     */
    private static void post(URI uri, byte[] body) throws Exception {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        c.setRequestProperty("Authorization", "Bearer w");
        c.setRequestProperty("Content-Type", "application/octet-stream");
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int status = c.getResponseCode();
        // read to the end, so the connection goes back to the keep-alive cache
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            String answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (status != 201) {
                throw new IllegalStateException("intake answered " + status + ": " + answer);
            }
        }
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
