package com.acme.catalog.bench;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operator's side of docs/runbooks/restore.md, after the restored resolver is up, through the resolver's and the
 * product's HTTP APIs only (CONTRACT.md): maintenance on (product, then resolver), the rotation, maintenance off
 * (resolver, then product). Every call it makes is counted by kind in {@link #calls()}; the reads that only wait
 * for the rotation job are counted apart in {@link #waitReads()}. Two ways to rotate:
 * <ul>
 * <li>{@link Mode#PER_STREAM} (the runbook without fleet endpoints): list the resolver's streams
 * ({@code GET /v1/streams}, pages of 5,000), then one {@code POST /v1/epochs/{t}/{c}/rotate} per stream, one after
 * another, as an operator's shell loop would;</li>
 * <li>{@link Mode#FLEET}: one {@code POST /v1/epochs/rotations} with scope {@code {"all":true}} and an
 * {@code Idempotency-Key}, then {@code GET /v1/epochs/rotations/{id}} every 0.5 s until it is DONE (maintenance-off
 * refuses while a job runs).</li>
 * </ul>
 */
final class RestoreRunbook {

    /** How the streams are rotated. */
    enum Mode {
        PER_STREAM("per-stream"), FLEET("fleet");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ON = "{\"enabled\":true}";
    private static final String OFF = "{\"enabled\":false}";
    private static final int LIST_LIMIT = 5000;
    private static final long JOB_TIMEOUT_NANOS = 3_600_000_000_000L;

    private final HttpClient http;
    private final String resolver;
    private final String product;
    private final Map<String, Long> calls = new LinkedHashMap<>();
    private final Map<String, Long> waitReads = new LinkedHashMap<>();

    RestoreRunbook(HttpClient http, String resolverUrl, String productUrl) {
        this.http = http;
        this.resolver = resolverUrl;
        this.product = productUrl;
    }

    /**
     * {@code requested} ({@code per-stream}, {@code fleet} or {@code auto}) as a mode: auto is {@link Mode#FLEET}
     * when the resolver's OpenAPI document ({@code GET /v3/api-docs}) has {@code POST /v1/epochs/rotations}. An
     * explicit {@code fleet} against a resolver without it fails here, before anything is set up.
     */
    static Mode resolve(String requested, HttpClient http, String resolverUrl) throws Exception {
        boolean fleet = hasFleetRotation(http, resolverUrl);
        return switch (requested) {
            case "per-stream" -> Mode.PER_STREAM;
            case "fleet" -> {
                if (!fleet) {
                    throw new IllegalStateException("--mode=fleet: the resolver's OpenAPI document has no"
                            + " POST /v1/epochs/rotations (use --mode=per-stream or auto)");
                }
                yield Mode.FLEET;
            }
            case "auto" -> fleet ? Mode.FLEET : Mode.PER_STREAM;
            default -> throw new IllegalArgumentException("--mode is per-stream, fleet, auto or both, got "
                    + requested);
        };
    }

    /**
     * Whether the resolver's OpenAPI document names {@code POST /v1/epochs/rotations}. (A probe of the path itself
     * would not tell: on a resolver without it, {@code GET /v1/epochs/rotations/{id}} is the stream status of
     * tenant "rotations".)
     */
    static boolean hasFleetRotation(HttpClient http, String resolverUrl) throws Exception {
        HttpResponse<String> res = Pipeline.call(http, "GET", resolverUrl + "/v3/api-docs", null, null);
        if (res.statusCode() != 200) {
            throw new IllegalStateException("GET /v3/api-docs answered " + res.statusCode()
                    + ": cannot tell whether the resolver rotates fleets; say --mode=per-stream or fleet");
        }
        return JSON.readTree(res.body()).path("paths").path("/v1/epochs/rotations").has("post");
    }

    /**
     * Whether the product answers the fleet completeness view ({@code GET /v1/projection-completeness} without a
     * stream: counts by state); without it a stream's completeness is read one stream at a time.
     */
    static boolean hasFleetCompleteness(HttpClient http, String productUrl) throws Exception {
        HttpResponse<String> res = Pipeline.call(http, "GET", productUrl + "/v1/projection-completeness", "op",
                null);
        return res.statusCode() == 200 && JSON.readTree(res.body()).has("byState");
    }

    /** Product first: from its answer on it serves nothing (503 MAINTENANCE). */
    void maintenanceOn() throws Exception {
        command("maintenance", "POST", product + "/v1/admin/maintenance", ON);
        command("maintenance", "POST", resolver + "/v1/admin/maintenance", ON);
    }

    /**
     * Resolver first, then the product, whose switch learns the new epochs before it answers. A product that
     * cannot list the resolver answers 503 MAINTENANCE ("maintenance stays on") and the runbook says to retry:
     * retried every second for up to a minute, each retry an operator call.
     */
    void maintenanceOff() throws Exception {
        command("maintenance", "POST", resolver + "/v1/admin/maintenance", OFF);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            count(calls, "maintenance");
            HttpResponse<String> res = Pipeline.call(http, "POST", product + "/v1/admin/maintenance", "op", OFF);
            if (res.statusCode() / 100 == 2) {
                return;
            }
            if (res.statusCode() != 503 || System.nanoTime() > deadline) {
                throw new IllegalStateException("product maintenance off answered " + res.statusCode() + ": "
                        + res.body());
            }
            WriteScenario.progress("restore: product maintenance off answered 503, retrying: %s", res.body());
            Thread.sleep(1000);
        }
    }

    /**
     * Rotates every stream of the restored database, in {@code mode}; answers how many streams were rotated into
     * which epoch ({@code epochs}: epoch -> streams, per-stream mode only: the fleet job does not say) and the job's
     * last status (fleet mode).
     */
    Map<String, Object> rotate(Mode mode, String reason) throws Exception {
        return mode == Mode.FLEET ? rotateFleet(reason) : rotateEachStream(reason);
    }

    private Map<String, Object> rotateEachStream(String reason) throws Exception {
        List<String> streams = new ArrayList<>();
        String after = null;
        do {
            String url = resolver + "/v1/streams?limit=" + LIST_LIMIT + (after == null ? "" : "&after=" + after);
            JsonNode page = JSON.readTree(command("listStreams", "GET", url, null));
            for (JsonNode s : page.path("streams")) {
                streams.add(s.path("tenant").asString() + "/" + s.path("catalog").asString());
            }
            after = page.path("next").isMissingNode() || page.path("next").isNull() ? null
                    : page.path("next").asString();
        } while (after != null);
        String body = "{\"reason\":" + JSON.writeValueAsString(reason) + "}";
        Map<Long, Long> epochs = new TreeMap<>();
        long lastReport = System.nanoTime();
        for (int i = 0; i < streams.size(); i++) {
            JsonNode answer = JSON.readTree(command("rotate", "POST",
                    resolver + "/v1/epochs/" + streams.get(i) + "/rotate", body));
            epochs.merge(answer.path("epoch").asLong(), 1L, Long::sum);
            if (System.nanoTime() - lastReport > 5_000_000_000L) {
                WriteScenario.progress("restore: rotated %d / %d streams", i + 1, streams.size());
                lastReport = System.nanoTime();
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("streamsListed", streams.size());
        m.put("epochs", epochs);
        return m;
    }

    private Map<String, Object> rotateFleet(String reason) throws Exception {
        String body = "{\"reason\":" + JSON.writeValueAsString(reason) + ",\"scope\":{\"all\":true}}";
        JsonNode started = JSON.readTree(command("rotate", "POST", resolver + "/v1/epochs/rotations", body,
                "Idempotency-Key", "bench-restore-" + UUID.randomUUID()));
        String id = started.path("rotationId").asString();
        long deadline = System.nanoTime() + JOB_TIMEOUT_NANOS;
        long lastReport = System.nanoTime();
        JsonNode job = started;
        while (!"DONE".equals(job.path("status").asString())) {
            if ("FAILED".equals(job.path("status").asString())) {
                throw new IllegalStateException("rotation " + id + " FAILED: " + job);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("rotation " + id + " not DONE within an hour: " + job);
            }
            Thread.sleep(500);
            count(waitReads, "rotationJob");
            HttpResponse<String> res = Pipeline.call(http, "GET", resolver + "/v1/epochs/rotations/" + id, "op",
                    null);
            if (res.statusCode() != 200) {
                throw new IllegalStateException("GET /v1/epochs/rotations/" + id + " answered " + res.statusCode()
                        + ": " + res.body());
            }
            job = JSON.readTree(res.body());
            if (System.nanoTime() - lastReport > 5_000_000_000L) {
                WriteScenario.progress("restore: rotation %s %s: %s / %s streams rotated, %s failed, eta %s s", id,
                        job.path("status").asString(), job.path("rotated").asString(), job.path("streams").asString(),
                        job.path("failed").asString(), job.path("etaSeconds").asString());
                lastReport = System.nanoTime();
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rotationId", id);
        m.put("job", JSON.convertValue(job, Map.class));
        return m;
    }

    /** Operator calls by kind (maintenance, listStreams, rotate). */
    Map<String, Long> calls() {
        return calls;
    }

    long totalCalls() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Reads that only waited for the rotation job (not counted as operator calls). */
    Map<String, Long> waitReads() {
        return waitReads;
    }

    /** One counted operator call that must answer 2xx; answers the body. */
    private String command(String kind, String method, String url, String body, String... headers)
            throws Exception {
        count(calls, kind);
        HttpResponse<String> res = Pipeline.call(http, method, url, "op", body, headers);
        if (res.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }

    private static void count(Map<String, Long> into, String kind) {
        into.merge(kind, 1L, Long::sum);
    }
}
