package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the restore scenario watches after the product's maintenance-off: when every stream is CURRENT at the new
 * epoch (the end of the RTO), when a sample of unaffected streams serves its kept item again, and whether any
 * affected stream's lost item is served. Reads only the services' public and operator APIs (CONTRACT.md); none of
 * these reads is an operator call of the runbook.
 */
final class RestoreWatch {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http;
    private final String product;
    private final ExecutorService readers;

    RestoreWatch(HttpClient http, String productUrl, ExecutorService readers) {
        this.http = http;
        this.product = productUrl;
        this.readers = readers;
    }

    /** The watch's outcome: when it saw every stream CURRENT at the epoch (-1: not within the timeout). */
    record Current(long atNanos, long reads, int notCurrent, Map<String, Object> last) {
    }

    /**
     * Until the fleet view ({@code GET /v1/projection-completeness} without a stream) counts every one of
     * {@code streams} CURRENT at {@code epoch} and lists none not CURRENT ({@link #everyStreamCurrent}), polled
     * every 0.5 s. The scenario then checks a sample stream by stream ({@link #notCurrent}), so a view that lags or
     * miscounts shows in the result.
     */
    Current fleet(int streams, long epoch, long timeoutNanos) throws Exception {
        long deadline = System.nanoTime() + timeoutNanos;
        long reads = 0;
        long lastReport = 0;
        JsonNode view = null;
        while (System.nanoTime() < deadline) {
            long started = System.nanoTime();
            reads++;
            HttpResponse<String> res = Pipeline.call(http, "GET", product + "/v1/projection-completeness", "op",
                    null);
            long answered = System.nanoTime();
            if (res.statusCode() == 200) {
                view = JSON.readTree(res.body());
                if (everyStreamCurrent(view, streams, epoch)) {
                    return new Current(answered, reads, 0, JSON.convertValue(view, Map.class));
                }
                if (answered - lastReport > 5_000_000_000L) {
                    WriteScenario.progress("restore: fleet view: %s", view.path("byState"));
                    lastReport = answered;
                }
            }
            Thread.sleep(Math.max(0, 500 - (System.nanoTime() - started) / 1_000_000));
        }
        return new Current(-1, reads, -1, view == null ? Map.of() : JSON.convertValue(view, Map.class));
    }

    /**
     * Whether a fleet completeness view counts {@code streams} streams CURRENT, none listed not CURRENT, and (where
     * its {@code byEpoch} counts streams by epoch) all of them at {@code epoch}.
     */
    static boolean everyStreamCurrent(JsonNode view, int streams, long epoch) {
        long current = view.path("byState").path("CURRENT").asLong(0);
        long atEpoch = atEpoch(view.path("byEpoch"), epoch);
        boolean noneListed = view.path("notCurrent").isArray() && view.path("notCurrent").isEmpty();
        return current >= streams && (atEpoch < 0 || atEpoch >= streams) && noneListed;
    }

    /**
     * The count of {@code byEpoch} for {@code epoch}: a number, or an object of counts by state (its CURRENT, else
     * their sum); -1 when the view has no such member (then the database check decides).
     */
    static long atEpoch(JsonNode byEpoch, long epoch) {
        JsonNode n = byEpoch.path(Long.toString(epoch));
        if (n.isNumber()) {
            return n.asLong();
        }
        if (n.isObject()) {
            if (n.has("CURRENT")) {
                return n.path("CURRENT").asLong();
            }
            long sum = 0;
            for (JsonNode v : n) {
                sum += v.asLong(0);
            }
            return sum;
        }
        return byEpoch.isObject() && !byEpoch.isEmpty() ? 0 : -1;
    }

    /**
     * What an operator without the fleet view does: every 0.5 s, {@code GET /v1/projection-completeness?tenant=&
     * catalog=} of each stream not yet seen CURRENT at {@code epoch}, on the reader pool; ends at the answer that
     * showed the last one.
     */
    Current perStream(List<String> streams, long epoch, long timeoutNanos) throws Exception {
        Set<String> pending = new HashSet<>(streams);
        long deadline = System.nanoTime() + timeoutNanos;
        AtomicLong reads = new AtomicLong();
        long lastReport = 0;
        long lastCurrent = -1;
        Map<String, Long> states = new TreeMap<>();
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            long started = System.nanoTime();
            List<Callable<long[]>> round = new ArrayList<>();
            List<String> order = new ArrayList<>(pending);
            Map<String, Long> roundStates = new ConcurrentHashMap<>();
            for (String path : order) {
                round.add(() -> {
                    reads.incrementAndGet();
                    String state = completeness(path);
                    long answered = System.nanoTime();
                    roundStates.merge(state, 1L, Long::sum);
                    return state.equals("CURRENT@" + epoch) ? new long[] {answered} : null;
                });
            }
            List<Future<long[]>> answers = readers.invokeAll(round);
            for (int i = 0; i < answers.size(); i++) {
                long[] at = answers.get(i).get();
                if (at != null) {
                    pending.remove(order.get(i));
                    lastCurrent = Math.max(lastCurrent, at[0]);
                }
            }
            states = new TreeMap<>(roundStates);
            if (System.nanoTime() - lastReport > 5_000_000_000L) {
                WriteScenario.progress("restore: %d / %d streams CURRENT at epoch %d; last round: %s",
                        streams.size() - pending.size(), streams.size(), epoch, states);
                lastReport = System.nanoTime();
            }
            if (!pending.isEmpty()) {
                Thread.sleep(Math.max(0, 500 - (System.nanoTime() - started) / 1_000_000));
            }
        }
        Map<String, Object> last = new LinkedHashMap<>();
        last.put("lastRoundStates", states);
        last.put("notCurrentExamples", pending.stream().sorted().limit(10).toList());
        return new Current(pending.isEmpty() ? lastCurrent : -1, reads.get(), pending.size(), last);
    }

    /** The streams of {@code streams} whose completeness is not CURRENT at {@code epoch}, with what it is. */
    Map<String, String> notCurrent(List<String> streams, long epoch) throws Exception {
        List<Callable<String>> reads = new ArrayList<>();
        for (String path : streams) {
            reads.add(() -> completeness(path));
        }
        Map<String, String> out = new TreeMap<>();
        List<Future<String>> answers = readers.invokeAll(reads);
        for (int i = 0; i < answers.size(); i++) {
            if (!answers.get(i).get().equals("CURRENT@" + epoch)) {
                out.put(streams.get(i), answers.get(i).get());
            }
        }
        return out;
    }

    /** {@code GET /v1/projection-completeness?tenant=&catalog=} as {@code STATE@epoch} (or {@code HTTP status}). */
    private String completeness(String path) throws Exception {
        String[] tc = path.split("/");
        HttpResponse<String> res = Pipeline.call(http, "GET", product + "/v1/projection-completeness?tenant="
                + tc[0] + "&catalog=" + tc[1], "op", null);
        if (res.statusCode() != 200) {
            return "HTTP " + res.statusCode();
        }
        JsonNode c = JSON.readTree(res.body());
        return c.path("state").asString() + "@" + c.path("epoch").asLong();
    }

    /**
     * From {@link #start} until {@link #close}: the public read of {@code item} of each stream every
     * {@code periodMillis}; records the first answer 200 naming {@code releaseId} per stream (a kept item served
     * again) and counts every answer 200 (a lost item served), with the statuses seen.
     */
    static final class Sampler implements AutoCloseable {
        private final HttpClient http;
        private final String product;
        private final List<String> streams;
        private final String item;
        private final String releaseId;
        private final long periodMillis;
        private final ExecutorService pool;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Map<String, Long> firstServed = new ConcurrentHashMap<>();
        private final Map<String, Long> statuses = new ConcurrentHashMap<>();
        private final List<String> servedExamples = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicLong served = new AtomicLong();
        private final AtomicLong reads = new AtomicLong();
        private final AtomicLong rounds = new AtomicLong();
        private final boolean untilAllServed;
        private long from;
        private Thread thread;

        /**
         * {@code untilAllServed}: stop reading a stream once it served (kept items); otherwise read every stream
         * every round until stopped (lost items).
         */
        Sampler(HttpClient http, String productUrl, List<String> streams, String item, String releaseId,
                long periodMillis, boolean untilAllServed, ExecutorService pool) {
            this.http = http;
            this.product = productUrl;
            this.streams = List.copyOf(streams);
            this.item = item;
            this.releaseId = releaseId;
            this.periodMillis = periodMillis;
            this.untilAllServed = untilAllServed;
            this.pool = pool;
        }

        /** Starts the rounds; times are measured from {@code fromNanos}. */
        Sampler start(long fromNanos) {
            this.from = fromNanos;
            thread = new Thread(this::loop, "restore-sampler-" + item);
            thread.setDaemon(true);
            thread.start();
            return this;
        }

        private void loop() {
            try {
                while (running.get() && !(untilAllServed && firstServed.size() == streams.size())) {
                    long started = System.nanoTime();
                    List<Callable<Void>> round = new ArrayList<>();
                    for (String path : streams) {
                        if (untilAllServed && firstServed.containsKey(path)) {
                            continue;
                        }
                        round.add(() -> {
                            read(path);
                            return null;
                        });
                    }
                    for (Future<Void> f : pool.invokeAll(round)) {
                        f.get();
                    }
                    rounds.incrementAndGet();
                    long left = periodMillis - (System.nanoTime() - started) / 1_000_000;
                    if (left > 0) {
                        Thread.sleep(left);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                statuses.merge("error: " + e, 1L, Long::sum);
            }
        }

        private void read(String path) throws Exception {
            reads.incrementAndGet();
            HttpResponse<String> res = Pipeline.call(http, "GET", product + "/v1/catalog/" + path + "/items/"
                    + item, null, null);
            long at = System.nanoTime();
            String code = res.statusCode() == 200 ? "" : problemCode(res.body());
            statuses.merge(res.statusCode() + (code.isEmpty() ? "" : " " + code), 1L, Long::sum);
            if (res.statusCode() != 200) {
                return;
            }
            served.incrementAndGet();
            if (servedExamples.size() < 5) {
                servedExamples.add(path + " at " + Latencies.round((at - from) / 1e9) + " s: " + res.body());
            }
            if (releaseId == null || res.body().contains("\"releaseId\":\"" + releaseId + "\"")) {
                firstServed.putIfAbsent(path, at - from);
            }
        }

        /** A problem answer's {@code code}, or "" when the body is not one. */
        private static String problemCode(String body) {
            try {
                return JSON.readTree(body).path("code").asString("");
            } catch (RuntimeException notJson) {
                return "";
            }
        }

        /** Waits until every stream served (kept items) or {@code timeoutNanos} passed, then stops. */
        void awaitAllServed(long timeoutNanos) throws InterruptedException {
            long deadline = System.nanoTime() + timeoutNanos;
            while (firstServed.size() < streams.size() && System.nanoTime() < deadline && thread.isAlive()) {
                Thread.sleep(50);
            }
            close();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            if (thread != null) {
                thread.join(30_000);
            }
        }

        /** Seconds from the start until each stream first served (p50/p99/max) and the streams that never did. */
        Map<String, Object> keptSummary() {
            Latencies lat = new Latencies();
            firstServed.values().forEach(lat::add);
            Map<String, Object> ms = lat.summary(1);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("streamsSampled", streams.size());
            m.put("served", firstServed.size());
            m.put("neverServed", streams.size() - firstServed.size());
            m.put("p50Seconds", Latencies.round(((Number) ms.get("p50Ms")).doubleValue() / 1000));
            m.put("p99Seconds", Latencies.round(((Number) ms.get("p99Ms")).doubleValue() / 1000));
            m.put("maxSeconds", Latencies.round(((Number) ms.get("maxMs")).doubleValue() / 1000));
            m.put("reads", reads.get());
            m.put("statuses", new TreeMap<>(statuses));
            return m;
        }

        /** Answers 200 (lost items served: must be 0), reads, rounds and the statuses seen. */
        Map<String, Object> lostSummary() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("streamsSampled", streams.size());
            m.put("served", served.get());
            m.put("rounds", rounds.get());
            m.put("reads", reads.get());
            m.put("statuses", new TreeMap<>(statuses));
            m.put("servedExamples", List.copyOf(servedExamples));
            return m;
        }

        long served() {
            return served.get();
        }
    }
}
