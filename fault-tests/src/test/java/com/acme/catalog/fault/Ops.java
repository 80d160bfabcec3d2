package com.acme.catalog.fault;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;

/**
 * The operator side of the load, beside the writers of {@link Load}: exports taken under a lease of the harness's own
 * (with catch-up pages read after them, the lease held a few seconds, so it pins the outbox while pruning runs),
 * on-demand prunes, product rebuilds started as an operator would ({@code POST /v1/rebuilds}), and a pull consumer
 * of the harness's own ({@value #AUDIT_CONSUMER}) reporting durable progress close behind the head. Counts what it did;
 * what a rebuild went through comes from the product's own rebuild rows (an audit trigger, {@link #installRebuildAudit}).
 */
final class Ops {

    static final String AUDIT_CONSUMER = "audit-1";

    private final Cluster cluster;
    private final Random random;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    /** rebuild id → catalog of every rebuild the harness started */
    final Map<String, String> rebuildStream = new ConcurrentHashMap<>();
    private final Map<String, Long> progress = new ConcurrentHashMap<>();
    private final List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();

    Ops(Cluster cluster, long seed) {
        this.cluster = cluster;
        this.random = new Random(seed ^ 0x0A5E5L);
    }

    /** @return what the operator side found wrong (a catch-up page not starting where it was asked to) */
    List<String> violations() {
        return List.copyOf(violations);
    }

    void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    /** Every phase and attempt change of a product rebuild, recorded in the transaction that made it. */
    static void installRebuildAudit(FaultPostgres pg) throws Exception {
        try (Connection c = pg.connect("product"); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS fault_audit");
            s.execute("""
                    CREATE TABLE IF NOT EXISTS fault_audit.rebuild_step (
                        rebuild_id uuid NOT NULL, tenant text NOT NULL, catalog text NOT NULL, phase text NOT NULL,
                        attempt integer NOT NULL, previous_attempt integer, error text,
                        at timestamptz NOT NULL DEFAULT clock_timestamp())
                    """);
            s.execute("""
                    CREATE OR REPLACE FUNCTION fault_audit.record_rebuild() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                      IF TG_OP = 'INSERT' OR NEW.phase IS DISTINCT FROM OLD.phase
                         OR NEW.attempt IS DISTINCT FROM OLD.attempt THEN
                        INSERT INTO fault_audit.rebuild_step (rebuild_id, tenant, catalog, phase, attempt,
                                                              previous_attempt, error)
                        VALUES (NEW.rebuild_id, NEW.tenant, NEW.catalog, NEW.phase, NEW.attempt,
                                CASE WHEN TG_OP = 'UPDATE' THEN OLD.attempt END, NEW.error);
                      END IF;
                      RETURN NULL;
                    END $$
                    """);
            s.execute("DROP TRIGGER IF EXISTS fault_audit_rebuild ON product.rebuild");
            s.execute("CREATE TRIGGER fault_audit_rebuild AFTER INSERT OR UPDATE ON product.rebuild "
                    + "FOR EACH ROW EXECUTE FUNCTION fault_audit.record_rebuild()");
        }
    }

    /** The harness's pull consumer on every stream (no delivery URL: the relay never pushes to it). */
    void registerAuditConsumer() throws Exception {
        for (String c : cluster.catalogs) {
            Cluster.Response r = cluster.call("POST", cluster.resolverUrl(0) + "/v1/retention/consumers", "op",
                    "{\"consumerId\":\"" + AUDIT_CONSUMER + "\",\"tenant\":\"" + Cluster.TENANT + "\",\"catalog\":\""
                            + c + "\",\"epoch\":1}");
            if (r.status() / 100 != 2) {
                throw new IllegalStateException("registration of " + AUDIT_CONSUMER + " on " + c + " answered "
                        + r.status() + ": " + r.body());
            }
        }
    }

    void start() {
        running = true;
        threads.add(thread("ops", this::opsLoop));
        threads.add(thread("audit-progress", this::progressLoop));
    }

    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.interrupt();
            t.join(60_000);
        }
    }

    private Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void opsLoop() {
        while (running) {
            try {
                Thread.sleep(1000 + random.nextInt(2000));
                String c = cluster.catalogs.get(random.nextInt(cluster.catalogs.size()));
                int dice = random.nextInt(100);
                if (dice < 45) {
                    export(c, random.nextInt(2), 2000 + random.nextInt(4000));
                } else if (dice < 75) {
                    prune(c);
                } else {
                    startRebuild(random.nextInt(2), c);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                count("opsErrors");
            }
        }
    }

    /** The audit consumer reports progress 0..40 events behind each stream's head, about every 700 ms. */
    private void progressLoop() {
        Random r = new Random(random.nextLong());
        while (running) {
            try {
                Thread.sleep(500 + r.nextInt(400));
                for (String c : cluster.catalogs) {
                    JsonNode cursor = cluster.get(cluster.resolverUrl(r.nextInt(2)) + "/v1/streams/"
                            + Cluster.TENANT + "/" + c + "/cursor");
                    long head = cursor.path("position").longValue();
                    long epoch = cursor.path("epoch").longValue();
                    if (epoch != cluster.epoch(c)) {
                        continue; // a rotation in between: the consumer is not registered there yet (or no more)
                    }
                    String key = c + "@" + epoch;
                    long target = Math.max(0, head - r.nextInt(41));
                    if (target <= progress.getOrDefault(key, -1L)) {
                        continue;
                    }
                    Cluster.Response res = cluster.call("PUT", cluster.resolverUrl(r.nextInt(2))
                            + "/v1/retention/consumers/" + AUDIT_CONSUMER + "/progress", "op", "{\"tenant\":\""
                            + Cluster.TENANT + "\",\"catalog\":\"" + c + "\",\"epoch\":" + epoch + ",\"position\":"
                            + target + "}");
                    if (res.status() / 100 == 2) {
                        progress.put(key, target);
                        count("progressReports");
                    } else {
                        count("progressRefused");
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                count("progressFailed");
            }
        }
    }

    /** The audit consumer's progress to every head, so it holds nothing once the load stopped. */
    void releaseAuditConsumer() {
        for (String c : cluster.catalogs) {
            try {
                JsonNode cursor = cluster.get(cluster.resolverUrl(0) + "/v1/streams/" + Cluster.TENANT + "/" + c
                        + "/cursor");
                long head = cursor.path("position").longValue();
                cluster.call("PUT", cluster.resolverUrl(0) + "/v1/retention/consumers/" + AUDIT_CONSUMER
                        + "/progress", "op", "{\"tenant\":\"" + Cluster.TENANT + "\",\"catalog\":\"" + c
                        + "\",\"epoch\":" + cursor.path("epoch").longValue() + ",\"position\":" + head + "}");
            } catch (Exception e) {
                count("progressFailed");
            }
        }
    }

    void prune(String c) throws Exception {
        Cluster.Response r = cluster.call("POST", cluster.resolverUrl(random.nextInt(2)) + "/v1/retention/prune", "op",
                "{\"tenant\":\"" + Cluster.TENANT + "\",\"catalog\":\"" + c + "\"}");
        count(r.status() / 100 == 2 ? "prunesRequested" : "prunesRefused");
    }

    /**
     * An export as a consumer of the export API does it: a lease, {@code POST /v1/exports}, its status until it is
     * final, then (READY) catch-up pages from its cursor, each checked to follow the one before; the lease is held
     * {@code holdMs} in all and released.
     *
     * @return the export's final status, or null when it could not be started
     */
    String export(String c, int instance, long holdMs) throws Exception {
        long t0 = System.nanoTime();
        String base = cluster.resolverUrl(instance);
        Cluster.Response lease = cluster.call("POST", base + "/v1/retention/leases", "op", "{\"tenant\":\""
                + Cluster.TENANT + "\",\"catalog\":\"" + c + "\",\"epoch\":" + cluster.epoch(c)
                + ",\"ttlSeconds\":30,\"owner\":\"fault-export\"}");
        if (lease.status() != 201) {
            count("exportsNotStarted");
            return null;
        }
        String leaseId = Cluster.JSON.readTree(lease.body()).path("leaseId").stringValue();
        String status = null;
        try {
            Cluster.Response started = cluster.call("POST", base + "/v1/exports", "op", "{\"tenant\":\""
                    + Cluster.TENANT + "\",\"catalog\":\"" + c + "\",\"leaseId\":\"" + leaseId + "\"}");
            if (started.status() != 202) {
                count("exportsNotStarted");
                return null;
            }
            String exportId = Cluster.JSON.readTree(started.body()).path("exportId").stringValue();
            JsonNode row = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                row = cluster.get(base + "/v1/exports/" + exportId);
                status = row.path("status").stringValue();
                if (!"RUNNING".equals(status)) {
                    break;
                }
                Thread.sleep(100);
            }
            count("exports" + status);
            if ("READY".equals(status)) {
                catchUp(base, c, leaseId, row.path("cursor").longValue(), row.path("chainDigest").stringValue());
            }
            long left = holdMs - (System.nanoTime() - t0) / 1_000_000;
            if (left > 0) {
                Thread.sleep(left);
            }
            return status;
        } finally {
            try {
                cluster.call("DELETE", base + "/v1/retention/leases/" + leaseId, "op", null);
            } catch (Exception e) {
                count("leaseReleaseFailed"); // it expires by itself
            }
        }
    }

    /** Up to three catch-up pages after {@code after}; each must start where the one before ended, with its digest. */
    void catchUp(String base, String c, String leaseId, long after, String digest) throws Exception {
        for (int i = 0; i < 3; i++) {
            Cluster.Response r = cluster.call("GET", base + "/v1/exports/events?tenant=" + Cluster.TENANT + "&catalog="
                    + c + "&after=" + after + "&lease_id=" + leaseId + "&history_epoch=" + cluster.epoch(c)
                    + "&limit=500", "op", null);
            if (r.status() != 200) {
                count("catchUpPages" + r.status());
                return;
            }
            JsonNode page = Cluster.JSON.readTree(r.body());
            count("catchUpPages");
            if (page.path("after").longValue() != after || !digest.equals(page.path("chainDigestAfter").stringValue())) {
                violations.add("catch-up page of " + c + " after " + after + " does not start there: " + page.path("after")
                        + " " + page.path("chainDigestAfter"));
                return;
            }
            after = page.path("through").longValue();
            digest = page.path("chainDigestThrough").stringValue();
            if (after >= page.path("head").longValue()) {
                return;
            }
        }
    }

    /**
     * {@code POST /v1/rebuilds} on product {@code instance} (the other one when it answers 409: the stream's worker
     * runs there). Returns [instance, rebuildId] or null.
     */
    String[] startRebuild(int instance, String c) {
        for (int k = 0; k < 2; k++) {
            int i = (instance + k) % 2;
            try {
                Cluster.Response r = cluster.call("POST", cluster.productUrl(i) + "/v1/rebuilds", "op",
                        "{\"tenant\":\"" + Cluster.TENANT + "\",\"catalog\":\"" + c + "\"}");
                if (r.status() == 202) {
                    String id = Cluster.JSON.readTree(r.body()).path("rebuildId").stringValue();
                    if (rebuildStream.put(id, c) == null) {
                        count("rebuildsRequested");
                    }
                    return new String[] {Integer.toString(i), id};
                }
            } catch (Exception e) {
                // that instance is down or cut off: try the other
            }
        }
        count("rebuildsNotStarted");
        return null;
    }

    /** The rebuild's phase (from either product instance), or null when neither answers. */
    JsonNode rebuild(String id) {
        for (int i = 0; i < 2; i++) {
            try {
                Cluster.Response r = cluster.call("GET", cluster.productUrl(i) + "/v1/rebuilds/" + id, "op", null);
                if (r.status() == 200) {
                    return Cluster.JSON.readTree(r.body());
                }
            } catch (Exception e) {
                // try the other
            }
        }
        return null;
    }
}
