package com.acme.catalog.product.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A stand-in for the resolver's progress endpoint: records every {@code PUT /v1/retention/consumers/{id}/progress}
 * it receives, answers 200 {@code {"durablePosition"}} (or the statuses queued with {@link #failNext}), and runs an
 * optional hook at receipt, before answering. One per test JVM.
 */
public final class FakeResolver {

    private static FakeResolver shared;

    private final HttpServer server;
    private final ObjectMapper json = new ObjectMapper();
    private final List<Report> reports = new ArrayList<>();
    private final Deque<Integer> queuedStatuses = new ArrayDeque<>();
    private volatile Consumer<Report> hook = r -> { };
    private final java.util.Map<String, Integer> failingConsumers = new java.util.HashMap<>();
    /** Reports of a position above this are answered {@link #refusedStatus} (a resolver whose cursor is there). */
    private long refuseAbove = Long.MAX_VALUE;
    private int refusedStatus;

    /** One received progress report; {@code answered} is the status the fake answered with. */
    public record Report(String consumerId, String authorization, String tenant, String catalog, long epoch,
            long position, int answered, long nanos) {
    }

    private FakeResolver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/retention/consumers/", this::handle);
        server.createContext("/v1/streams/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "fake-resolver");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public static synchronized FakeResolver shared() {
        if (shared == null) {
            try {
                shared = new FakeResolver();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers the next {@code n} reports with {@code status}. */
    public synchronized void failNext(int n, int status) {
        for (int i = 0; i < n; i++) {
            queuedStatuses.add(status);
        }
    }

    /** Answers every report of {@code consumerId} with {@code status} until {@link #reset}. */
    public synchronized void failConsumer(String consumerId, int status) {
        failingConsumers.put(consumerId, status);
    }

    /** Answers every report of a position above {@code position} with {@code status} until {@link #reset}. */
    public synchronized void refuseAbove(long position, int status) {
        refuseAbove = position;
        refusedStatus = status;
    }

    /** Runs at receipt of each report, before the answer is sent. */
    public void onReport(Consumer<Report> hook) {
        this.hook = hook;
    }

    public synchronized void reset() {
        reports.clear();
        queuedStatuses.clear();
        failingConsumers.clear();
        refuseAbove = Long.MAX_VALUE;
        hook = r -> { };
    }

    public synchronized List<Report> reports() {
        return List.copyOf(reports);
    }

    public List<Report> reports(String tenant, String catalog) {
        return reports().stream().filter(r -> r.tenant().equals(tenant) && r.catalog().equals(catalog)).toList();
    }

    /** Streams whose chain digest at a position this fake confirms: tenant/catalog/epoch/position -> digest. */
    private final Map<String, String> digests = new java.util.concurrent.ConcurrentHashMap<>();

    /** Answers {@code GET /v1/streams/{t}/{c}/chain-digest?position=&epoch=} with {@code digest} from now on. */
    public void knowDigest(com.acme.catalog.contracts.StreamId s, long epoch, long position, String digest) {
        digests.put(s + "/" + epoch + "/" + position, digest);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex; InputStream in = ex.getRequestBody()) {
            String path = ex.getRequestURI().getPath();
            String[] parts = path.split("/");
            if ("GET".equals(ex.getRequestMethod()) && parts.length == 6 && "chain-digest".equals(parts[5])) {
                answerDigest(ex, parts[3], parts[4]);
                return;
            }
            if (!"PUT".equals(ex.getRequestMethod()) || parts.length != 6 || !"progress".equals(parts[5])) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            JsonNode body = json.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            int status;
            synchronized (this) {
                status = failingConsumers.getOrDefault(parts[4],
                        queuedStatuses.isEmpty() ? 200 : queuedStatuses.poll());
                if (body.get("position").longValue() > refuseAbove) {
                    status = refusedStatus;
                }
            }
            Report r = new Report(parts[4], ex.getRequestHeaders().getFirst("Authorization"),
                    body.get("tenant").stringValue(), body.get("catalog").stringValue(), body.get("epoch").longValue(),
                    body.get("position").longValue(), status, System.nanoTime());
            hook.accept(r);
            synchronized (this) {
                reports.add(r);
            }
            byte[] answer = ("{\"durablePosition\":" + r.position() + "}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, answer.length);
            ex.getResponseBody().write(answer);
        }
    }

    private void answerDigest(HttpExchange ex, String tenant, String catalog) throws IOException {
        Map<String, String> q = new java.util.HashMap<>();
        for (String kv : String.valueOf(ex.getRequestURI().getQuery()).split("&")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                q.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        String digest = digests.get(tenant + "/" + catalog + "/" + q.get("epoch") + "/" + q.get("position"));
        if (digest == null) {
            ex.sendResponseHeaders(404, -1);
            return;
        }
        byte[] answer = ("{\"tenant\":\"" + tenant + "\",\"catalog\":\"" + catalog + "\",\"epoch\":" + q.get("epoch")
                + ",\"position\":" + q.get("position") + ",\"chainDigest\":\"" + digest + "\",\"head\":"
                + q.get("position") + "}").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, answer.length);
        ex.getResponseBody().write(answer);
    }
}
