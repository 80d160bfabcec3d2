package com.acme.catalog.product.recovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.product.support.ChainWriter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The resolver as the recovery worker sees it, per catalog: retention status (epoch, cursor), the epoch API, leases, catch-up
 * pages cut from a {@link ChainWriter} history, the chain digest at a position, progress reports. Each answer has
 * the full shape of its contract record (the product reads them into those records). Each catalog can be told to answer the status
 * with a failure, catch-up with 410, or pages with a wrong digest. Exports are not served (503), so a rebuild the
 * worker starts fails at its export; tests only check that it started.
 */
final class FakeCatchUpResolver implements AutoCloseable {

    /** What the fake holds for one catalog of tenant acme. */
    static final class Stream {
        volatile List<ChainWriter.Event> events = List.of();
        volatile long epoch = 1;
        volatile int statusAnswer = 200;
        volatile long prunedThrough;
        volatile boolean gone;
        volatile boolean brokenChain;
        /** Listed as {@code rolledBack} (its history put back to {@link #events} and marked by the resolver). */
        volatile boolean rolledBack;
        /**
         * Where the current epoch starts, as the history entry and the listing carry it: a {@code StartsFrom} in JSON
         * (the rotation recorded it), or null (unknown: not written).
         */
        volatile String startsFrom;
        /** The epochs the product registered its consumer in, in order. */
        final List<Long> registeredEpochs = new CopyOnWriteArrayList<>();
        final AtomicInteger pagesServed = new AtomicInteger();
    }

    /** What {@code GET /v1/streams} answers: 200 with the listing, or this status (the resolver unreachable). */
    volatile int listingAnswer = 200;

    private final HttpServer server;
    private final Map<String, Stream> streams = new ConcurrentHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger leases = new AtomicInteger();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String AT = "2026-12-02T04:50:07.123456Z";

    FakeCatchUpResolver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    Stream stream(String catalog) {
        return streams.computeIfAbsent(catalog, c -> new Stream());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] request = ex.getRequestBody().readAllBytes();
            String method = ex.getRequestMethod();
            String path = ex.getRequestURI().getPath();
            requests.add(method + " " + path);
            Map<String, String> q = query(ex.getRequestURI().getRawQuery());
            if (method.equals("GET") && path.equals("/v1/streams")) {
                listing(ex, "true".equals(q.get("rolledBack")));
            } else if (method.equals("GET") && path.startsWith("/v1/retention/streams/")) {
                Stream s = stream(path.substring(path.lastIndexOf('/') + 1));
                if (s.statusAnswer != 200) {
                    answer(ex, s.statusAnswer, "{\"code\":\"INTERNAL\"}");
                    return;
                }
                String catalog = path.substring(path.lastIndexOf('/') + 1);
                answer(ex, 200, "{\"epoch\":" + s.epoch + ",\"cursor\":" + s.events.size() + ",\"prunedThrough\":" + s.prunedThrough + ","
                        + "\"retainedEvents\":" + s.events.size() + ",\"blockedBy\":[],\"consumers\":[],\"leases\":[],"
                        + "\"tenant\":\"acme\",\"catalog\":\"" + catalog + "\",\"minAge\":\"PT1H\",\"ripeThrough\":0,"
                        + "\"pruneableThrough\":0,\"observedAt\":\"" + AT + "\"}");
            } else if (method.equals("GET") && path.startsWith("/v1/epochs/")) {
                Stream s = stream(path.substring(path.lastIndexOf('/') + 1));
                if (s.statusAnswer != 200) {
                    answer(ex, s.statusAnswer, "{\"code\":\"INTERNAL\"}");
                    return;
                }
                answer(ex, 200, "{\"epoch\":" + s.epoch + ",\"issuedAt\":\"" + AT + "\",\"highWaterMark\":"
                        + s.events.size() + ",\"history\":[{\"epoch\":" + s.epoch + ",\"issuedAt\":\"" + AT
                        + "\",\"reason\":\"test\",\"issuer\":\"fake\""
                        + (s.startsFrom == null ? "" : ",\"startsFrom\":" + s.startsFrom) + "}]}");
            } else if (method.equals("POST") && path.equals("/v1/retention/leases")) {
                JsonNode lease = JSON.readTree(request);
                answer(ex, 201, "{\"leaseId\":\"" + new UUID(0x0190000000007000L, leases.incrementAndGet())
                        + "\",\"pin\":" + stream(lease.path("catalog").stringValue()).events.size()
                        + ",\"expiresAt\":\"" + AT + "\",\"tenant\":\"acme\",\"catalog\":\""
                        + lease.path("catalog").stringValue() + "\",\"epoch\":" + lease.path("epoch").longValue()
                        + ",\"owner\":\"" + lease.path("owner").stringValue() + "\"}");
            } else if (method.equals("POST") && path.endsWith("/renew")) {
                answer(ex, 200, "{\"expiresAt\":\"" + AT + "\"}");
            } else if (method.equals("DELETE") && path.startsWith("/v1/retention/leases/")) {
                answer(ex, 204, null);
            } else if (method.equals("POST") && path.equals("/v1/retention/consumers")) {
                JsonNode r = JSON.readTree(request);
                Stream registered = streams.get(r.path("catalog").stringValue()); // not a subscription's "*"
                if (registered != null) {
                    registered.registeredEpochs.add(r.path("epoch").longValue());
                }
                answer(ex, 201, "{\"consumerId\":\"" + r.path("consumerId").stringValue() + "\",\"durablePosition\":0,"
                        + "\"tenant\":\"acme\",\"catalog\":\"" + r.path("catalog").stringValue() + "\",\"epoch\":1,"
                        + "\"deliveryUrl\":null,\"registeredAt\":\"" + AT + "\",\"streams\":0}");
            } else if (method.equals("PUT") && path.endsWith("/progress")) {
                answer(ex, 200, "{\"durablePosition\":0}");
            } else if (method.equals("GET") && path.endsWith("/chain-digest")) {
                digest(ex, path.split("/")[4], Long.parseLong(q.get("position")));
            } else if (method.equals("GET") && path.equals("/v1/exports/events")) {
                page(ex, q.get("catalog"), Long.parseLong(q.get("after")), Integer.parseInt(q.get("limit")));
            } else {
                answer(ex, 503, "{\"code\":\"MAINTENANCE\"}");
            }
        }
    }

    private void page(HttpExchange ex, String catalog, long after, int limit) throws IOException {
        Stream s = stream(catalog);
        if (s.gone) {
            answer(ex, 410, "{\"code\":\"CURSOR_STALE\"}");
            return;
        }
        List<ChainWriter.Event> all = s.events;
        long through = Math.min(all.size(), after + limit);
        String digestAfter = after == 0 ? ChainDigest.ZERO : all.get((int) after - 1).chainDigest();
        StringBuilder events = new StringBuilder();
        for (long p = after + 1; p <= through; p++) {
            ChainWriter.Event e = all.get((int) p - 1);
            events.append(events.length() == 0 ? "" : ",")
                    .append(s.brokenChain ? e.deliveredWithBadDigest() : e.delivered());
        }
        String digestThrough = through == after ? digestAfter : all.get((int) through - 1).chainDigest();
        String tenant = "acme";
        s.pagesServed.incrementAndGet();
        answer(ex, 200, "{\"tenant\":\"" + tenant + "\",\"catalog\":\"" + catalog + "\",\"epoch\":" + s.epoch
                + ",\"after\":" + after + ",\"through\":" + through + ",\"chainDigestAfter\":\"" + digestAfter
                + "\",\"chainDigestThrough\":\"" + digestThrough + "\",\"head\":" + all.size() + ",\"events\":["
                + events + "]}");
    }

    /**
     * {@code GET /v1/streams}: every catalog the fake holds events for (one page; answering ones only), or only the
     * rolled back ones.
     */
    private void listing(HttpExchange ex, boolean rolledBackOnly) throws IOException {
        if (listingAnswer != 200) {
            answer(ex, listingAnswer, "{\"code\":\"MAINTENANCE\"}");
            return;
        }
        StringBuilder out = new StringBuilder();
        streams.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            Stream s = e.getValue();
            if (s.statusAnswer != 200 || rolledBackOnly && !s.rolledBack) {
                return;
            }
            List<ChainWriter.Event> all = s.events;
            String digest = all.isEmpty() ? ChainDigest.ZERO : all.get(all.size() - 1).chainDigest();
            out.append(out.length() == 0 ? "" : ",").append("{\"tenant\":\"acme\",\"catalog\":\"").append(e.getKey())
                    .append("\",\"epoch\":").append(s.epoch).append(",\"cursor\":").append(all.size())
                    .append(",\"chainDigest\":\"").append(digest).append("\",\"prunedThrough\":").append(s.prunedThrough)
                    .append(",\"currentEpoch\":").append(s.epoch)
                    .append(s.startsFrom == null ? "" : ",\"startsFrom\":" + s.startsFrom)
                    .append(s.rolledBack ? ",\"rolledBack\":true,\"rolledBackAt\":\"" + AT + "\"" : "").append('}');
        });
        answer(ex, 200, "{\"streams\":[" + out + "]}");
    }

    /** {@code GET /v1/streams/acme/{catalog}/chain-digest?position=}: the history's digest there. */
    private void digest(HttpExchange ex, String catalog, long position) throws IOException {
        Stream s = stream(catalog);
        List<ChainWriter.Event> all = s.events;
        if (position > all.size()) {
            answer(ex, 422, "{\"code\":\"POSITION_AHEAD\"}");
            return;
        }
        String digest = position == 0 ? ChainDigest.ZERO : all.get((int) position - 1).chainDigest();
        answer(ex, 200, "{\"tenant\":\"acme\",\"catalog\":\"" + catalog + "\",\"epoch\":" + s.epoch
                + ",\"position\":" + position + ",\"chainDigest\":\"" + digest + "\",\"head\":" + all.size() + "}");
    }

    private static void answer(HttpExchange ex, int status, String body) throws IOException {
        if (body == null) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            out.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
