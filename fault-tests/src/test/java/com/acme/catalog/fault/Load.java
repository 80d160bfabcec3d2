package com.acme.catalog.fault;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.acme.catalog.fault.History.Op;
import com.acme.catalog.fault.History.Outcome;

import tools.jackson.databind.JsonNode;

/**
 * The seeded client load: per stream writer threads, each sending item writes (some with an expectedRevision,
 * some of them stale on purpose), multi-change transactions (some with a stale expectedRevision, so all or nothing
 * is refused) and PUBLIC releases, to either resolver instance. Every write carries an {@code Idempotency-Key} of its
 * own and is retried with it while its outcome is unknown ({@link Writer#send}). Every operation is recorded in the
 * {@link History} with its attempts.
 */
final class Load {

    private final Cluster cluster;
    private final History history;
    private final long seed;
    /** how long a write whose outcome is unknown is retried with its key ({@code -Dfault.retrySeconds}, 180) */
    final long retryMs = Long.getLong("fault.retrySeconds", 180) * 1000;
    /**
     * Planted-bug switch for showing that the checker fails (docs/spk-05.md): {@code -Dfault.plant=no-key} retries
     * without the key, so a retried write whose first attempt committed is applied twice.
     */
    private static final boolean NO_KEY = "no-key".equals(System.getProperty("fault.plant", ""));
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    Load(Cluster cluster, History history, long seed) {
        this.cluster = cluster;
        this.history = history;
        this.seed = seed;
    }

    /** One synchronous item write per stream, so every stream has a cursor before the consumer registers. */
    void seedStreams() throws Exception {
        Writer w = new Writer(cluster.catalogs.get(0), new Random(seed));
        for (String c : cluster.catalogs) {
            Op op = w.putItem(c, "seed", null);
            if (op.outcome != Outcome.OK) {
                throw new IllegalStateException("seed write failed: " + op);
            }
        }
    }

    void start() {
        running = true;
        int n = 0;
        for (int s = 0; s < cluster.catalogs.size(); s++) {
            // the first stream gets two writers: concurrent writes and revision races on one cursor row
            for (int k = 0; k < (s == 0 ? 2 : 1); k++) {
                Writer w = new Writer(cluster.catalogs.get(s), new Random(seed * 31 + (n++)));
                Thread t = new Thread(w::loop, "writer-" + cluster.catalogs.get(s) + "-" + k);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
    }

    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(retryMs + 30_000); // a write retrying its unknown outcome finishes first
        }
    }

    private final class Writer {
        private final String catalog;
        private final Random random;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        /** last revision this writer saw committed per item (null: unknown) */
        private final Map<String, Integer> known = new HashMap<>();

        Writer(String catalog, Random random) {
            this.catalog = catalog;
            this.random = random;
        }

        void loop() {
            while (running) {
                try {
                    int dice = random.nextInt(100);
                    if (dice < 55) {
                        String item = "i-" + random.nextInt(8);
                        Integer expected = null;
                        int e = random.nextInt(10);
                        if (e < 3 && known.get(item) != null) {
                            expected = known.get(item);
                        } else if (e == 3) {
                            expected = known.getOrDefault(item, 0) + 5; // stale on purpose: a conflict
                        }
                        putItem(catalog, item, expected);
                    } else if (dice < 90) {
                        transaction();
                    } else {
                        release();
                    }
                    Thread.sleep(10 + random.nextInt(30));
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    System.out.println("[fault] writer " + catalog + ": " + e);
                }
            }
        }

        Op putItem(String c, String item, Integer expected) {
            Op op = history.begin(c, expected == null ? "putItem" : "putItem(expected)",
                    id -> List.of("m" + id + ".0"));
            op.items.add(item);
            String body = "{\"attributes\":{\"name\":\"" + item + " by " + op.id + "\",\"op\":\"" + op.markers.get(0)
                    + "\",\"price\":" + random.nextInt(1000) + "}"
                    + (expected == null ? "" : ",\"expectedRevision\":" + expected) + "}";
            JsonNode r = send(op, "PUT", "/v1/streams/" + Cluster.TENANT + "/" + c + "/items/" + item, body);
            if (op.outcome == Outcome.OK) {
                op.epoch = r.path("epoch").longValue();
                op.firstPosition = op.lastPosition = r.path("position").longValue();
                known.put(item, r.path("revision").intValue());
            } else if (op.outcome == Outcome.UNKNOWN) {
                known.remove(item);
            }
            return op;
        }

        void transaction() {
            int changes = 2 + random.nextInt(3);
            boolean conflict = random.nextInt(5) == 0;
            Op op = history.begin(catalog, conflict ? "transaction(conflict)" : "transaction", id -> {
                List<String> m = new ArrayList<>();
                for (int j = 0; j < changes; j++) {
                    m.add("m" + id + "." + j);
                }
                return m;
            });
            StringBuilder b = new StringBuilder("{\"changes\":[");
            List<String> items = new ArrayList<>();
            for (int j = 0; j < changes; j++) {
                String item = "t-" + random.nextInt(12);
                while (items.contains(item)) {
                    item = item + "x";
                }
                items.add(item);
                b.append(j == 0 ? "" : ",").append("{\"op\":\"upsertItem\",\"itemId\":\"").append(item)
                        .append("\",\"attributes\":{\"name\":\"").append(item).append("\",\"op\":\"")
                        .append(op.markers.get(j)).append("\",\"n\":").append(j).append('}');
                if (conflict && j == changes - 1) {
                    b.append(",\"expectedRevision\":").append(100_000);
                }
                b.append('}');
            }
            b.append("]}");
            op.items.addAll(items);
            JsonNode r = send(op, "POST", "/v1/streams/" + Cluster.TENANT + "/" + catalog + "/transactions",
                    b.toString());
            if (op.outcome == Outcome.OK) {
                op.epoch = r.path("epoch").longValue();
                op.firstPosition = r.path("firstPosition").longValue();
                op.lastPosition = r.path("lastPosition").longValue();
            }
            for (String item : items) {
                known.remove(item);
            }
        }

        void release() {
            List<String> candidates = known.entrySet().stream().filter(e -> e.getValue() != null)
                    .map(Map.Entry::getKey).sorted().toList();
            if (candidates.isEmpty()) {
                return;
            }
            String item = candidates.get(random.nextInt(candidates.size()));
            Op op = history.begin(catalog, "release", id -> List.of("rel-" + id));
            op.items.add(item);
            String body = "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"" + item + "\",\"revision\":"
                    + known.get(item) + "}]}";
            JsonNode r = send(op, "PUT", "/v1/streams/" + Cluster.TENANT + "/" + catalog + "/releases/"
                    + op.markers.get(0), body);
            if (op.outcome == Outcome.OK) {
                op.epoch = r.path("epoch").longValue();
                op.firstPosition = op.lastPosition = r.path("position").longValue();
            }
        }

        /**
         * Sends one logical write with its {@code Idempotency-Key} and, while its outcome is unknown (a timeout, a
         * cut or reset connection, any 5xx: 503 {@code OUTCOME_UNKNOWN}, {@code MAINTENANCE}, {@code
         * DATABASE_UNAVAILABLE}, a 500), sends the same body with the same key again, to either instance in turn,
         * with backoff (honouring {@code Retry-After}), until a definite answer or until {@link #retryMs} ran out.
         * A refused connection is definite only before anything was sent (nothing can be committed); after an
         * ambiguous attempt it is retried like the rest. Every attempt is recorded on the op.
         */
        private JsonNode send(Op op, String method, String path, String body) {
            int target = random.nextInt(2);
            long backoffMs = 200;
            try {
                while (true) {
                    Attempt a = attempt(op, target, method, path, body);
                    op.attempts++;
                    op.attemptLog.add(a.summary());
                    if (a.definite()) {
                        op.outcome = a.outcome();
                        return a.body();
                    }
                    long now = System.nanoTime();
                    if (op.firstAmbiguousNanos == 0) {
                        op.firstAmbiguousNanos = now;
                        op.retryDeadlineNanos = now + retryMs * 1_000_000;
                    }
                    long sleep = Math.max(backoffMs, a.retryAfterMs());
                    if (now + sleep * 1_000_000 > op.retryDeadlineNanos) {
                        op.outcome = Outcome.UNKNOWN; // the retry time ran out
                        return null;
                    }
                    Thread.sleep(sleep);
                    backoffMs = Math.min(backoffMs * 2, 2000);
                    target = 1 - target;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                op.outcome = Outcome.UNKNOWN;
                op.reason = "interrupted";
                return null;
            } finally {
                op.endNanos = System.nanoTime();
            }
        }

        /** One attempt; sets the op's status, detail and reason to its own. */
        private Attempt attempt(Op op, int target, String method, String path, String body)
                throws InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.resolverUrl(target) + path))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer w");
            if (!NO_KEY) {
                b.header("Idempotency-Key", op.key);
            }
            HttpRequest req = b.method(method, HttpRequest.BodyPublishers.ofString(body)).build();
            try {
                HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
                op.status = res.statusCode();
                op.detail = "resolver-" + target;
                if (res.statusCode() / 100 == 2) {
                    op.reason = null;
                    return new Attempt(true, Outcome.OK, Cluster.JSON.readTree(res.body()), 0, "" + res.statusCode());
                }
                op.detail = "resolver-" + target + " " + abbreviate(res.body());
                String code = null;
                try {
                    code = Cluster.JSON.readTree(res.body()).path("code").stringValue();
                } catch (RuntimeException notJson) {
                    // no problem body
                }
                op.reason = res.statusCode() + (code == null ? "" : " " + code);
                if (res.statusCode() >= 500) {
                    long retryAfter = res.headers().firstValueAsLong("Retry-After").orElse(0) * 1000;
                    return new Attempt(false, Outcome.UNKNOWN, null, Math.min(retryAfter, 5000), op.reason);
                }
                return new Attempt(true, Outcome.FAILED, null, 0, op.reason);
            } catch (ConnectException e) {
                op.detail = "resolver-" + target + " refused";
                op.reason = "connection refused";
                // nothing sent: definite unless an earlier attempt may have committed
                return new Attempt(op.firstAmbiguousNanos == 0, Outcome.FAILED, null, 0, op.reason);
            } catch (IOException e) {
                op.detail = "resolver-" + target + " " + e;
                op.reason = e.getClass().getSimpleName();
                return new Attempt(false, Outcome.UNKNOWN, null, 0, op.reason);
            }
        }
    }

    /** What one attempt of a write answered; {@code definite}: no retry can change it. */
    private record Attempt(boolean definite, Outcome outcome, JsonNode body, long retryAfterMs, String summary) {
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) : s;
    }
}
