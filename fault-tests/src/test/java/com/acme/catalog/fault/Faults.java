package com.acme.catalog.fault;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import tools.jackson.databind.JsonNode;

/**
 * The faults, injected one after another at seeded random times while the load runs. The plan (kinds, pauses,
 * durations, targets) is drawn from the seed up front, so a seed replays the same plan.
 */
final class Faults {

    enum Kind {
        /** pg_terminate_backend of every service connection (a burst of three, 200 ms apart) */
        TERMINATE_BACKENDS,
        /** pg_ctl restart -m fast, of the resolver's primary (target 0) or the product and control server (1) */
        PG_RESTART_FAST,
        /** pg_ctl restart -m immediate: a crash, recovery from WAL (target as above) */
        PG_RESTART_IMMEDIATE,
        /** kill -9 of one resolver instance, restarted after a pause */
        KILL_RESOLVER,
        /** kill -9 of one product instance, restarted after a pause */
        KILL_PRODUCT,
        /** the product unreachable from the resolver (connections refused and reset) */
        PRODUCT_UNREACHABLE,
        /** the resolver unreachable from the product */
        RESOLVER_UNREACHABLE,
        /** both proxies stall: connections accepted, no byte flows */
        PROXY_STALL,
        /** every open connection through both proxies reset at once */
        PROXY_RESET,
        /** one stream's cursor row held FOR UPDATE by another connection; the other streams must keep flowing */
        CURSOR_LOCK,
        /**
         * pg_terminate_backend of a product backend inside a transaction whose statement touches the inbox: the
         * apply of a relay delivery (the relay's request in flight), rarely a catch-up page's apply
         */
        TERMINATE_IN_RELAY_DELIVERY,
        /** ... of a resolver backend inside an export's REPEATABLE READ snapshot (between or in its COPYs) */
        TERMINATE_IN_EXPORT_SNAPSHOT,
        /** ... of a resolver backend serving a catch-up page (its select of the outbox, or its transaction after it) */
        TERMINATE_IN_CATCH_UP_PAGE,
        /** ... of the product backend holding a rebuild's cutover transaction (CUTTING_OVER, before the swap) */
        TERMINATE_IN_CUTOVER,
        /** ... of a resolver instance's backends in a transaction while it commits a bootstrap import's chunks */
        TERMINATE_IN_BOOTSTRAP_CHUNK,
        /** kill -9 of the product instance whose rebuild is in CUTTING_OVER (just before the swap), restarted */
        KILL_PRODUCT_BEFORE_SWAP,
        /**
         * the product to resolver link stalled during a rebuild's LOADING for longer than the rebuild lease's TTL:
         * the lease expires by the database clock, the rebuild gets 410 and must restart by itself
         */
        LEASE_EXPIRY_IN_REBUILD,
        /**
         * one stream's epoch rotated as the runbook does it (docs/runbooks/restore.md): maintenance on (the product
         * first), rotate, the audit consumer registered in the new epoch, maintenance off (the resolver first), while
         * the writers and the light faults go on; the product must reach the new epoch by itself (adopted in place
         * when its projection is exactly where the new epoch starts, rebuilt otherwise)
         */
        EPOCH_ROTATION,
        /**
         * the resolver's primary stopped -m immediate under load with its standby synchronous, the standby promoted:
         * the services follow by their multi-host URL without a restart, nothing acknowledged is lost; then a new
         * standby is made from the new primary in the old one's directory and port
         */
        FAILOVER_SYNC,
        /**
         * replication asynchronous, the standby cut off the primary's WAL while acknowledged writes go on (and the
         * product applies them), then the primary killed and the standby promoted: the tail is lost. The resolver
         * must refuse writes (503 HISTORY_ROLLED_BACK) until the runbook's rotation, the product must stop serving
         * the lost tail within 5 s of the detection and rebuild in the new epoch
         */
        FAILOVER_ASYNC_LOST_TAIL
    }

    record Planned(Kind kind, long pauseMs, long durationMs, int target) {
    }

    /** When a planned fault was being injected (its outage included), for judging writes left unknown. */
    record Window(Kind kind, long startNanos, long endNanos) {
    }

    /** every planned fault's window, in order */
    final List<Window> windows = Collections.synchronizedList(new ArrayList<>());

    private final Cluster cluster;
    private final History history;
    private final Ops ops;
    /** per aimed kind: how often it hit its phase exactly or only near it, and what followed */
    final Map<Kind, Map<String, Integer>> aim = Collections.synchronizedMap(new EnumMap<>(Kind.class));
    /** the harness's bootstrap streams: catalog → events per chunk */
    final Map<String, Integer> bootstrapStreams = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger bootstraps = new AtomicInteger();
    private Path bootstrapFile;
    final Map<Kind, Integer> injected = java.util.Collections.synchronizedMap(new EnumMap<>(Kind.class));
    /** light faults that found nothing to hit (PostgreSQL down during a restart of the main sequence) */
    final java.util.concurrent.atomic.AtomicInteger lightMissed = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean lightRunning;
    /** set while a fault aimed at a rebuild's phase waits for that phase: the connection cuts would fail it first */
    private volatile boolean lightHeld;
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private volatile long lastFaultEndNanos;

    Faults(Cluster cluster, History history, Ops ops) {
        this.cluster = cluster;
        this.history = history;
        this.ops = ops;
    }

    /**
     * Every kind at least once (shuffled), then random kinds until {@code totalMs} of plan; outages last
     * {@code outageMs}..2×{@code outageMs}.
     */
    static List<Planned> plan(long seed, long totalMs, long outageMs) {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        List<Kind> kinds = new ArrayList<>(List.of(Kind.values()));
        Collections.shuffle(kinds, r);
        List<Planned> plan = new ArrayList<>();
        long t = 0;
        int i = 0;
        while (i < kinds.size() || t < totalMs) {
            Kind k = i < kinds.size() ? kinds.get(i) : Kind.values()[r.nextInt(Kind.values().length)];
            long pause = 1000 + r.nextInt(4000);
            long duration = outageMs + (long) (r.nextDouble() * outageMs);
            plan.add(new Planned(k, pause, duration, r.nextInt(2)));
            t += pause + estimate(k, duration);
            i++;
        }
        return plan;
    }

    private static long estimate(Kind k, long duration) {
        return switch (k) {
            case KILL_RESOLVER, KILL_PRODUCT -> 30_000;
            case KILL_PRODUCT_BEFORE_SWAP -> 45_000;
            case TERMINATE_IN_CUTOVER, LEASE_EXPIRY_IN_REBUILD -> 20_000;
            case TERMINATE_IN_RELAY_DELIVERY, TERMINATE_IN_EXPORT_SNAPSHOT, TERMINATE_IN_CATCH_UP_PAGE,
                    TERMINATE_IN_BOOTSTRAP_CHUNK, EPOCH_ROTATION -> 3_000;
            case FAILOVER_SYNC -> 10_000;
            case FAILOVER_ASYNC_LOST_TAIL -> 30_000;
            case PG_RESTART_FAST, PG_RESTART_IMMEDIATE -> 3_000;
            case TERMINATE_BACKENDS, PROXY_RESET -> 500;
            default -> duration;
        };
    }

    /**
     * Alongside the main sequence, a second seeded thread cuts connections every {@code minMs}..{@code maxMs}:
     * {@code pg_terminate_backend} of every service connection or a reset of every proxied connection, so these
     * land in the middle of whatever else runs (a write group, a relay delivery, a catch-up page, a restart).
     */
    Thread startLight(long seed, long minMs, long maxMs) {
        lightRunning = true;
        Random r = new Random(seed ^ 0x1F2E3D4CL);
        Thread t = new Thread(() -> {
            while (lightRunning) {
                try {
                    Thread.sleep(minMs + (long) (r.nextDouble() * (maxMs - minMs)));
                    if (!lightRunning) {
                        return;
                    }
                    if (lightHeld) {
                        continue;
                    }
                    if (r.nextBoolean()) {
                        terminateBackends();
                        injected.merge(Kind.TERMINATE_BACKENDS, 1, Integer::sum);
                    } else {
                        cluster.toProduct.resetAll();
                        cluster.toResolver.resetAll();
                        injected.merge(Kind.PROXY_RESET, 1, Integer::sum);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    lightMissed.incrementAndGet();
                }
            }
        }, "light-faults");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Stops the light faults, the last to run: the faults end here ({@link #lastFaultEndNanos}). */
    void stopLight(Thread t) throws InterruptedException {
        lightRunning = false;
        t.interrupt();
        t.join(10_000);
        lastFaultEndNanos = System.nanoTime();
    }

    /** @return when the last fault ended: the latest of the planned ones, or the light faults once stopped */
    long lastFaultEndNanos() {
        return lastFaultEndNanos;
    }

    /** @return what the faults themselves found wrong while they ran (an aimed fault's expected outcome missing) */
    List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    void run(List<Planned> plan) throws Exception {
        for (Planned p : plan) {
            Thread.sleep(p.pauseMs());
            long t0 = System.nanoTime();
            try {
                inject(p);
            } finally {
                lastFaultEndNanos = System.nanoTime();
                windows.add(new Window(p.kind(), t0, lastFaultEndNanos));
            }
            injected.merge(p.kind(), 1, Integer::sum);
            String line = String.format("%s target=%d duration=%dms took=%dms", p.kind(), p.target(),
                    p.durationMs(), (System.nanoTime() - t0) / 1_000_000);
            log.add(line);
            System.out.println("[fault] " + line);
        }
    }

    private void inject(Planned p) throws Exception {
        switch (p.kind()) {
            case TERMINATE_BACKENDS -> {
                for (int i = 0; i < 3; i++) {
                    terminateBackends();
                    Thread.sleep(200);
                }
            }
            case PG_RESTART_FAST, PG_RESTART_IMMEDIATE -> {
                String mode = p.kind() == Kind.PG_RESTART_FAST ? "fast" : "immediate";
                if (p.target() == 0) {
                    awaitStandby(); // never restart a primary pg_basebackup is copying
                    cluster.rpg.primary().restart(mode);
                } else {
                    cluster.pg.restart(mode);
                }
            }
            case KILL_RESOLVER -> {
                cluster.resolvers[p.target()].kill();
                Thread.sleep(Math.min(p.durationMs(), 3000));
                cluster.startResolver(p.target());
            }
            case KILL_PRODUCT -> {
                cluster.products[p.target()].kill();
                Thread.sleep(Math.min(p.durationMs(), 3000));
                cluster.startProduct(p.target());
            }
            case PRODUCT_UNREACHABLE -> outage(cluster.toProduct, FaultProxy.Mode.REFUSE, p.durationMs());
            case RESOLVER_UNREACHABLE -> outage(cluster.toResolver, FaultProxy.Mode.REFUSE, p.durationMs());
            case PROXY_STALL -> {
                cluster.toProduct.set(FaultProxy.Mode.STALL);
                cluster.toResolver.set(FaultProxy.Mode.STALL);
                Thread.sleep(p.durationMs());
                cluster.toProduct.set(FaultProxy.Mode.PASS);
                cluster.toResolver.set(FaultProxy.Mode.PASS);
            }
            case PROXY_RESET -> {
                cluster.toProduct.resetAll();
                cluster.toResolver.resetAll();
            }
            case CURSOR_LOCK -> cursorLock(cluster.catalogs.get(p.target() % cluster.catalogs.size()),
                    p.durationMs());
            case TERMINATE_IN_RELAY_DELIVERY -> guarded(p, () -> aimed(p.kind(), "product", """
                    application_name LIKE 'product-%' AND xact_start IS NOT NULL
                    AND state IN ('active', 'idle in transaction') AND query ILIKE '%inbox%'
                    """, null));
            case TERMINATE_IN_EXPORT_SNAPSHOT -> guarded(p, () -> exportSnapshot(p));
            case TERMINATE_IN_CATCH_UP_PAGE -> guarded(p, () -> catchUpPage(p));
            case TERMINATE_IN_CUTOVER, KILL_PRODUCT_BEFORE_SWAP, LEASE_EXPIRY_IN_REBUILD ->
                    guarded(p, () -> inRebuild(p));
            case TERMINATE_IN_BOOTSTRAP_CHUNK -> guarded(p, () -> bootstrapChunk(p));
            case EPOCH_ROTATION -> rotate(p.kind(), List.of(catalog(p)), p.target(), p.durationMs());
            case FAILOVER_SYNC -> failoverSync(p);
            case FAILOVER_ASYNC_LOST_TAIL -> failoverLostTail(p);
        }
    }

    /**
     * An aimed fault whose own calls failed (an HTTP call to a service refused or reset by another fault) is logged
     * and counted as an error of its kind; the run goes on.
     */
    private void guarded(Planned p, Cluster.Step step) throws Exception {
        try {
            step.run();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            aimLog(p.kind(), "error", String.valueOf(e));
        }
    }

    private String catalog(Planned p) {
        return cluster.catalogs.get(Math.floorMod(p.target() + (int) p.pauseMs(), cluster.catalogs.size()));
    }

    private void aimLog(Kind kind, String how, String what) {
        aim.computeIfAbsent(kind, k -> new java.util.TreeMap<>()).merge(how, 1, Integer::sum);
        String line = kind + " " + how + ": " + what;
        log.add(line);
        System.out.println("[fault] " + line);
    }

    /**
     * Waits (at most 15 s, while {@code background} runs if given) for a service backend of {@code db} matching
     * {@code where} and terminates it in the same statement that found it: an exact hit. Found none: terminates
     * every service backend of the database instead and says the fault landed only near its phase.
     */
    private void aimed(Kind kind, String db, String where, Thread background) throws Exception {
        List<String> hit = terminateWhen(db, where, 15_000, background);
        if (!hit.isEmpty()) {
            aimLog(kind, "exact", String.join("; ", hit));
        } else {
            aimLog(kind, "near", "no backend in the phase seen; terminated " + terminateBackends() + " backends");
        }
    }

    /** Polls pg_stat_activity of {@code db} for service backends matching {@code where}; terminates those found. */
    List<String> terminateWhen(String db, String where, long timeoutMs, Thread background) throws Exception {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        try (Connection c = cluster.server(db).connect("postgres"); PreparedStatement s = c.prepareStatement(
                "SELECT pid, application_name, state, left(regexp_replace(query, '\\s+', ' ', 'g'), 70), "
                        + "pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? "
                        + "AND application_name <> 'fault-harness' AND pid <> pg_backend_pid() AND (" + where + ")")) {
            s.setString(1, db);
            while (System.nanoTime() < deadline && (background == null || background.isAlive())) {
                List<String> found = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getString(2) + " pid " + rs.getInt(1) + " " + rs.getString(3) + " ["
                                + rs.getString(4) + "]" + (rs.getBoolean(5) ? "" : " (gone already)"));
                    }
                }
                if (!found.isEmpty()) {
                    return found;
                }
                Thread.sleep(3);
            }
        }
        return List.of();
    }

    private Thread background(String name, Cluster.Step step) {
        Thread t = new Thread(() -> {
            try {
                step.run();
            } catch (Exception e) {
                ops.count("aimedBackgroundErrors");
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** An export of the harness's own; its snapshot's backend terminated while it is inside (a COPY of) it. */
    private void exportSnapshot(Planned p) throws Exception {
        String c = catalog(p);
        String[] status = new String[1];
        Thread t = background("aimed-export", () -> status[0] = ops.export(c, p.target(), 0));
        aimed(p.kind(), "resolver", "xact_start IS NOT NULL AND query LIKE 'COPY (%'", t);
        t.join(90_000);
        aimLog(p.kind(), "outcome", "export of " + c + " ended " + status[0]);
    }

    /** every rotation the harness made: "catalog: epoch N -> M" */
    final List<String> rotations = Collections.synchronizedList(new ArrayList<>());

    /**
     * The runbook's rotation of one stream while the load runs: product maintenance on, resolver maintenance on,
     * {@code POST /v1/epochs/{t}/{c}/rotate}, the audit consumer registered in the new epoch, resolver maintenance
     * off, product maintenance off. Each step is repeated (on either instance in turn) until it answers 2xx: light
     * faults cut connections. A rotate whose answer was lost is judged by the resolver's open cursor (a rotation
     * that did not finish in the database is finished by rotating again, docs/epochs.md). Maintenance left on, or
     * no rotation, is a violation.
     */
    private void rotate(Kind kind, List<String> streams, int i, long durationMs) throws Exception {
        long t0 = System.nanoTime();
        String off = null;
        try {
            Map<String, Long> before = new java.util.LinkedHashMap<>();
            for (String c : streams) {
                before.put(c, cursorEpoch(c));
            }
            step("product maintenance on", i, k -> cluster.call("POST", cluster.productUrl(k)
                    + "/v1/admin/maintenance", "op", "{\"enabled\":true}"));
            step("resolver maintenance on", i, k -> cluster.call("POST", cluster.resolverUrl(k)
                    + "/v1/admin/maintenance", "op", "{\"enabled\":true}"));
            // the operator's steps take a while: writers meet 503 MAINTENANCE and must retry after the window
            Thread.sleep(durationMs / 4);
            for (String c : streams) {
                rotateOne(kind, c, before.get(c), i, t0);
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            violations.add(kind + " of " + streams + ": " + e);
        } finally {
            try {
                step("resolver maintenance off", i, k -> cluster.call("POST", cluster.resolverUrl(k)
                        + "/v1/admin/maintenance", "op", "{\"enabled\":false}"));
            } catch (Exception e) {
                off = "resolver maintenance still on: " + e;
            }
            try {
                step("product maintenance off", i, k -> cluster.call("POST", cluster.productUrl(k)
                        + "/v1/admin/maintenance", "op", "{\"enabled\":false}"));
            } catch (Exception e) {
                off = (off == null ? "" : off + "; ") + "product maintenance still on: " + e;
            }
            if (off != null) {
                violations.add(kind + " of " + streams + ": " + off);
            }
        }
    }

    /** Within the maintenance window: one stream rotated, the audit consumer registered in its new epoch. */
    private void rotateOne(Kind kind, String c, long before, int i, long t0) throws Exception {
        long epoch = before;
        long deadline = System.nanoTime() + 120_000_000_000L;
        for (int k = i; epoch <= before && System.nanoTime() < deadline; k = 1 - k) {
            try {
                Cluster.Response r = cluster.call("POST", cluster.resolverUrl(k) + "/v1/epochs/" + Cluster.TENANT
                        + "/" + c + "/rotate", "op", "{\"reason\":\"fault suite: rotation under load\"}");
                if (r.status() / 100 == 2) {
                    epoch = Cluster.JSON.readTree(r.body()).path("epoch").longValue();
                    break;
                }
            } catch (java.io.IOException e) {
                // the answer is lost: the open cursor says whether it rotated
            }
            Thread.sleep(500);
            try {
                epoch = cursorEpoch(c);
            } catch (Exception e) {
                // asked again next time
            }
        }
        if (epoch <= before) {
            violations.add(kind + " of " + c + ": the open cursor stayed in epoch " + before);
            return;
        }
        long e = epoch;
        step("audit consumer in epoch " + e, i, k -> {
            Cluster.Response r = cluster.call("POST", cluster.resolverUrl(k) + "/v1/retention/consumers", "op",
                    "{\"consumerId\":\"" + Ops.AUDIT_CONSUMER + "\",\"tenant\":\"" + Cluster.TENANT
                            + "\",\"catalog\":\"" + c + "\",\"epoch\":" + e + "}");
            return r.status() == 409 ? new Cluster.Response(200, r.body()) : r; // registered by a lost attempt
        });
        cluster.epochs.put(c, e);
        rotations.add(c + ": epoch " + before + " -> " + e);
        aimLog(kind, "rotated", c + " epoch " + before + " -> " + e + " after "
                + (System.nanoTime() - t0) / 1_000_000 + " ms of maintenance");
    }

    /**
     * The epoch of the resolver's open cursor of {@code c}, asked of each instance in turn until one answers
     * ({@link #step}), as an operator following the runbook would: a rotation overlaps the suite's other faults, and
     * a resolver whose database is restarting or failing over answers 503 {@code DATABASE_UNAVAILABLE} for a while.
     */
    private long cursorEpoch(String c) throws Exception {
        Cluster.Response r = step("the open cursor of " + c, 0, k -> cluster.call("GET", cluster.resolverUrl(k)
                + "/v1/streams/" + Cluster.TENANT + "/" + c + "/cursor", "op", null));
        return Cluster.JSON.readTree(r.body()).path("epoch").longValue();
    }

    /**
     * Repeats {@code call} on instance {@code first}, then the other, and so on, until a 2xx (at most 120 s).
     *
     * @return the 2xx answer
     */
    private Cluster.Response step(String what, int first, Call call) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        String last = null;
        for (int n = 0; System.nanoTime() < deadline; n++) {
            try {
                Cluster.Response r = call.on((first + n) % 2);
                if (r.status() / 100 == 2) {
                    return r;
                }
                last = r.status() + " " + r.body();
            } catch (java.io.IOException e) {
                last = String.valueOf(e);
            }
            Thread.sleep(Math.min(2000, 200L << Math.min(n, 4)));
        }
        throw new IllegalStateException(what + " never answered 2xx: " + last);
    }

    @FunctionalInterface
    private interface Call {
        Cluster.Response on(int instance) throws Exception;
    }

    /** Catch-up pages read again and again under a lease of the harness's own; the serving backend terminated. */
    private void catchUpPage(Planned p) throws Exception {
        String c = catalog(p);
        String base = cluster.resolverUrl(p.target());
        Cluster.Response lease = cluster.call("POST", base + "/v1/retention/leases", "op", "{\"tenant\":\""
                + Cluster.TENANT + "\",\"catalog\":\"" + c
                + "\",\"epoch\":" + cluster.epoch(c) + ",\"ttlSeconds\":30,\"owner\":\"fault-pages\"}");
        if (lease.status() != 201) {
            aimLog(p.kind(), "near", "no lease (" + lease.status() + "); terminated " + terminateBackends());
            return;
        }
        JsonNode l = Cluster.JSON.readTree(lease.body());
        String leaseId = l.path("leaseId").stringValue();
        long pin = l.path("pin").longValue();
        AtomicBoolean reading = new AtomicBoolean(true);
        List<Integer> statuses = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread t = background("aimed-pages", () -> {
            while (reading.get()) {
                try {
                    statuses.add(cluster.call("GET", base + "/v1/exports/events?tenant=" + Cluster.TENANT
                            + "&catalog=" + c + "&after=" + pin + "&lease_id=" + leaseId
                            + "&history_epoch=" + cluster.epoch(c) + "&limit=5000", "op", null)
                            .status());
                } catch (java.io.IOException e) {
                    statuses.add(-1);
                }
            }
        });
        try {
            aimed(p.kind(), "resolver", """
                    query LIKE 'SELECT position, wire, chain_digest FROM outbox%'
                    AND state IN ('active', 'idle in transaction')
                    """, t);
        } finally {
            Thread.sleep(300);
            reading.set(false);
            t.join(30_000);
            try {
                cluster.call("DELETE", base + "/v1/retention/leases/" + leaseId, "op", null);
            } catch (java.io.IOException e) {
                ops.count("leaseReleaseFailed"); // it expires by itself
            }
        }
        aimLog(p.kind(), "outcome", "pages of " + c + " after " + pin + " answered " + new java.util.TreeMap<>(
                statuses.stream().collect(Collectors.groupingBy(x -> x, Collectors.counting()))));
    }

    /**
     * A rebuild started as an operator would, watched through its status endpoint until it reaches the phase the
     * fault aims at (CUTTING_OVER: it holds its cutover transaction there, just before the swap, for the suite's
     * test pause; LOADING for the lease expiry), then the fault; a rebuild that ends before the phase is retried
     * once. The light connection cuts are held meanwhile (until the phase is reached; for the lease expiry and the
     * kill until the rebuild ended), else they fail the rebuild first (a cut connection ends a rebuild FAILED).
     */
    private void inRebuild(Planned p) throws Exception {
        lightHeld = true;
        try {
            inRebuildAlone(p);
        } finally {
            lightHeld = false;
        }
    }

    private void inRebuildAlone(Planned p) throws Exception {
        String c = catalog(p);
        String want = p.kind() == Kind.LEASE_EXPIRY_IN_REBUILD ? "LOADING" : "CUTTING_OVER";
        for (int round = 0; round < 2; round++) {
            String[] rb = ops.startRebuild(p.target(), c);
            if (rb == null) {
                continue;
            }
            int instance = Integer.parseInt(rb[0]);
            String id = rb[1];
            JsonNode st = awaitPhase(instance, id, want, 150_000);
            if (st == null || !want.equals(st.path("phase").stringValue())) {
                aimLog(p.kind(), "retry", "rebuild " + id + " of " + c + " did not reach " + want + ": " + st);
                continue;
            }
            int attempt = st.path("attempt").intValue();
            switch (p.kind()) {
                case TERMINATE_IN_CUTOVER -> {
                    lightHeld = false;
                    List<String> hit = terminateWhen("product", "application_name = 'product-" + instance
                            + "' AND state = 'idle in transaction'", 1500, null);
                    aimLog(p.kind(), hit.isEmpty() ? "near" : "exact", "rebuild " + id + " of " + c + " in "
                            + want + ": " + (hit.isEmpty() ? "nothing idle in transaction" : String.join("; ", hit)));
                }
                case KILL_PRODUCT_BEFORE_SWAP -> {
                    cluster.products[instance].kill();
                    aimLog(p.kind(), "exact", "killed product-" + instance + " with rebuild " + id + " of " + c
                            + " in CUTTING_OVER (attempt " + attempt + ")");
                    Thread.sleep(Math.min(p.durationMs(), 3000));
                    cluster.startProduct(instance);
                }
                default -> {
                    long stallMs = Cluster.REBUILD_LEASE_TTL_SECONDS * 1000L + 1500;
                    cluster.toResolver.set(FaultProxy.Mode.STALL);
                    Thread.sleep(stallMs);
                    cluster.toResolver.set(FaultProxy.Mode.PASS);
                    aimLog(p.kind(), "exact", "product->resolver stalled " + stallMs + " ms in LOADING of rebuild "
                            + id + " of " + c + " (lease TTL " + Cluster.REBUILD_LEASE_TTL_SECONDS + " s)");
                }
            }
            JsonNode end = awaitFinal(id, 90_000);
            String outcome = end == null ? "unknown" : end.path("phase").stringValue() + " attempt "
                    + end.path("attempt").intValue() + (end.path("error").isString() ? " (" + end.path("error").stringValue() + ")" : "");
            aimLog(p.kind(), "outcome", "rebuild " + id + " ended " + outcome);
            // DONE on the attempt whose lease expired: it went on with a lease the database had already ended
            if (p.kind() == Kind.LEASE_EXPIRY_IN_REBUILD && end != null && "DONE".equals(end.path("phase").stringValue())
                    && end.path("attempt").intValue() <= attempt) {
                violations.add("rebuild " + id + " of " + c + ": its lease's TTL passed with the link stalled in "
                        + "LOADING, but it did not restart: " + outcome);
            }
            return;
        }
        aimLog(p.kind(), "near", "no rebuild reached its phase; terminated " + terminateBackends() + " backends");
    }

    private JsonNode awaitPhase(int instance, String id, String phase, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        JsonNode st = null;
        while (System.nanoTime() < deadline) {
            try {
                Cluster.Response r = cluster.call("GET", cluster.productUrl(instance) + "/v1/rebuilds/" + id, "op",
                        null);
                if (r.status() == 200) {
                    st = Cluster.JSON.readTree(r.body());
                    String now = st.path("phase").stringValue();
                    if (phase.equals(now) || FINAL.contains(now)) {
                        return st;
                    }
                }
            } catch (Exception e) {
                // instance busy or cut off: ask again
            }
            Thread.sleep(100);
        }
        return st;
    }

    static final int BOOTSTRAP_EVENTS = 3000;
    static final java.util.Set<String> FINAL = java.util.Set.of("DONE", "FAILED", "ABORTED");

    private JsonNode awaitFinal(String id, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        JsonNode st = null;
        while (System.nanoTime() < deadline) {
            st = ops.rebuild(id);
            if (st != null && FINAL.contains(st.path("phase").stringValue())) {
                return st;
            }
            Thread.sleep(300);
        }
        return st;
    }

    /**
     * A bootstrap import of generated events into a new stream of the harness's own, in chunks of 50, on one
     * resolver instance; once its first chunk is committed, that instance's backends inside a transaction are
     * terminated (the import's chunk, and any write in flight there). Exact when the import then failed at a chunk.
     */
    private void bootstrapChunk(Planned p) throws Exception {
        int events = BOOTSTRAP_EVENTS;
        int chunk = 50;
        synchronized (this) {
            if (bootstrapFile == null) {
                bootstrapFile = Files.createTempFile("fault-bootstrap-", ".json");
                SnapshotEventsGenerator.write(bootstrapFile, events, 19);
            }
        }
        String c = "boot-" + bootstraps.incrementAndGet();
        int instance = p.target();
        String[] answer = new String[1];
        boolean[] failedAtChunk = new boolean[1];
        Path file = bootstrapFile;
        Thread t = background("aimed-bootstrap", () -> {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(cluster.resolverUrl(instance)
                    + "/v1/streams/" + Cluster.TENANT + "/" + c + "/bootstrap-import?chunkEvents=" + chunk))
                    .timeout(Duration.ofSeconds(180)).header("Authorization", "Bearer op")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofFile(file)).build(),
                    HttpResponse.BodyHandlers.ofString());
            String body = res.body();
            failedAtChunk[0] = res.statusCode() != 200 && body.contains("\"failure\"");
            answer[0] = res.statusCode() + " " + (body.length() > 400 ? body.substring(0, 400) : body);
        });
        long deadline = System.nanoTime() + 60_000_000_000L;
        boolean started = false;
        try (Connection conn = cluster.connect("resolver"); PreparedStatement s = conn.prepareStatement(
                "SELECT position FROM resolver.stream_cursor WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL")) {
            s.setString(1, Cluster.TENANT);
            s.setString(2, c);
            while (!started && t.isAlive() && System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery()) {
                    started = rs.next() && rs.getLong(1) > 0;
                }
                if (!started) {
                    Thread.sleep(5);
                }
            }
        }
        if (started) {
            bootstrapStreams.put(c, chunk);
        }
        List<String> hit = started ? terminateWhen("resolver", "application_name = 'resolver-" + instance
                + "' AND xact_start IS NOT NULL AND state IN ('active', 'idle in transaction')", 2000, t)
                : List.of();
        t.join(180_000);
        aimLog(p.kind(), failedAtChunk[0] ? "exact" : "near", "import into " + c + " on resolver-" + instance + ": "
                + (hit.isEmpty() ? "no backend terminated" : String.join("; ", hit)) + " -> " + answer[0]);
        if (failedAtChunk[0] && !answer[0].contains("DATABASE_UNAVAILABLE")) {
            violations.add("bootstrap import into " + c + " cut by pg_terminate_backend did not answer "
                    + "DATABASE_UNAVAILABLE: " + answer[0]);
        }
    }

    private static void outage(FaultProxy proxy, FaultProxy.Mode mode, long ms) throws InterruptedException {
        proxy.set(mode);
        Thread.sleep(ms);
        proxy.set(FaultProxy.Mode.PASS);
    }

    /**
     * Terminates every backend of the services (all but the harness's own) on the suite's databases, on both servers
     * (the resolver's primary, then the product and control server).
     */
    int terminateBackends() throws Exception {
        return terminateBackends(cluster.rpg.primary()) + terminateBackends(cluster.pg);
    }

    private static int terminateBackends(FaultPostgres server) throws Exception {
        try (Connection c = server.connect("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("""
                        SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
                         WHERE datname IN ('resolver', 'product', 'control')
                           AND application_name <> 'fault-harness' AND pid <> pg_backend_pid()
                        """)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Holds the open cursor row of {@code catalog} FOR UPDATE for {@code ms}; every other stream must complete ok
     * writes meanwhile (a violation otherwise).
     */
    private void cursorLock(String catalog, long ms) throws Exception {
        try (Connection c = cluster.connect("resolver")) {
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement("""
                    SELECT position FROM resolver.stream_cursor
                     WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL FOR UPDATE
                    """)) {
                s.setString(1, Cluster.TENANT);
                s.setString(2, catalog);
                s.executeQuery().close();
            }
            long since = System.nanoTime();
            Thread.sleep(ms);
            for (String other : cluster.catalogs) {
                if (!other.equals(catalog) && history.okSince(other, since) == 0) {
                    violations.add("stream " + other + " completed no write while " + catalog
                            + "'s cursor row was locked for " + ms + " ms");
                }
            }
            c.rollback();
        }
    }
    /** the new standby being made after a failover, in the background (null: none) */
    private volatile Thread standbyMaker;

    /**
     * A new standby from the new primary, made in the background while the next faults run (pg_basebackup takes
     * seconds); {@link #awaitStandby} before anything that touches the resolver's servers again.
     */
    private void recreateStandby(Failover f) {
        standbyMaker = background("standby-maker", () -> {
            try {
                cluster.rpg.recreateStandby();
                aimLog(f.kind, "standby", "new standby 127.0.0.1:" + cluster.rpg.standby().port
                        + " streaming, synchronous again " + f.sincePromotion(System.nanoTime())
                        + " ms after the promotion");
            } catch (Exception e) {
                violations.add(f.kind + ": no new standby after the failover: " + e);
                throw e;
            }
        });
    }

    /** Waits for the standby being made after a failover, if any. */
    void awaitStandby() throws InterruptedException {
        Thread t = standbyMaker;
        if (t != null) {
            t.join(300_000);
        }
    }

    /** every failover the suite made, in order */
    final List<Failover> failovers = Collections.synchronizedList(new ArrayList<>());

    /** Waits for the failovers' watchers (reads sampled, convergence) to end. */
    void awaitFailovers() throws InterruptedException {
        awaitStandby();
        for (Failover f : List.copyOf(failovers)) {
            Thread t = f.watcher;
            if (t != null) {
                t.join(180_000);
            }
        }
    }

    /**
     * The synchronous failover: the primary stopped -m immediate under load, the standby (synchronous, so it has
     * every acknowledged commit) promoted; the services find it through their multi-host URL. A watcher measures the
     * products' convergence to the heads after the promotion; a new standby is made from the new primary. A stream
     * behind an acknowledged write after it, or marked rolled back, is a violation.
     */
    private void failoverSync(Planned p) throws Exception {
        awaitStandby();
        ReplicatedPostgres r = cluster.rpg;
        Failover f = new Failover(p.kind());
        failovers.add(f);
        if (!r.synchronous()) {
            r.setSynchronous(true);
        }
        r.awaitStreaming(30_000);
        f.killedNanos = System.nanoTime();
        f.promotedNanos = r.failover();
        Map<String, long[]> survived = primaryCursors();
        Thread.sleep(500); // answers of commits made before the kill are recorded
        for (Checker.LostTail t : lostTails(survived, f.promotedNanos)) {
            violations.add("FAILOVER_SYNC lost acknowledged writes: " + t + " (acknowledged through "
                    + ackedThrough(t.catalog(), t.epoch(), f.promotedNanos) + ")");
        }
        aimLog(p.kind(), "promoted", "127.0.0.1:" + r.primary().port + " after "
                + (f.promotedNanos - f.killedNanos) / 1_000_000 + " ms; cursors " + show(survived));
        f.watcher = background("failover-watch", () -> watch(f, List.copyOf(cluster.catalogs), Map.of()));
        recreateStandby(f);
    }

    /**
     * The asynchronous failover with a lost tail: replication made asynchronous, the standby cut off the primary's
     * WAL, acknowledged writes go on (until the product applied some past the standby's cursor), then the primary
     * stopped -m immediate and the standby promoted. A watcher samples public reads of the items the lost tail wrote
     * on both products and records when the resolver listed each stream rolled back; once every stream that lost a
     * tail is listed (at most 30 s) the runbook's rotation follows (maintenance on, rotate, maintenance off), then a
     * new standby and synchronous replication again.
     */
    private void failoverLostTail(Planned p) throws Exception {
        awaitStandby();
        ReplicatedPostgres r = cluster.rpg;
        Failover f = new Failover(p.kind());
        failovers.add(f);
        r.awaitStreaming(30_000);
        r.setSynchronous(false);
        r.cutStandby();
        Thread.sleep(3000);
        Map<String, Long> standby = r.standbyCursors();
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!(f.productAheadOfStandby = productAhead(standby)) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        f.killedNanos = System.nanoTime();
        f.promotedNanos = r.failover();
        Map<String, long[]> survived = primaryCursors();
        Thread.sleep(500);
        List<Checker.LostTail> tails = lostTails(survived, f.promotedNanos);
        f.lostTails.addAll(tails);
        aimLog(p.kind(), "promoted", "127.0.0.1:" + r.primary().port + "; standby had " + standby
                + ", product ahead of it: " + f.productAheadOfStandby + "; lost " + tails);
        if (tails.isEmpty()) {
            aimLog(p.kind(), "near", "no acknowledged write lost");
        }
        Map<String, Map<String, String>> lostItems = lostItems(tails);
        List<String> lostStreams = tails.stream().map(Checker.LostTail::catalog).toList();
        f.watcher = background("failover-watch", () -> watch(f, lostStreams, lostItems));
        long detectBy = System.nanoTime() + 30_000_000_000L;
        while (!f.detectedNanos.keySet().containsAll(lostStreams) && System.nanoTime() < detectBy) {
            Thread.sleep(100);
        }
        for (String c : lostStreams) {
            if (!f.detectedNanos.containsKey(c)) {
                violations.add("FAILOVER_ASYNC_LOST_TAIL: the resolver did not list " + c
                        + " rolled back within 30 s of the promotion (lost " + tails + ")");
            }
        }
        if (!lostStreams.isEmpty()) {
            rotate(p.kind(), lostStreams, p.target(), p.durationMs());
        }
        f.rotatedNanos = System.nanoTime();
        recreateStandby(f);
    }

    /** Per stream, the open cursor (epoch, position) on the resolver's current primary. */
    private Map<String, long[]> primaryCursors() throws Exception {
        Map<String, long[]> out = new java.util.TreeMap<>();
        try (Connection c = cluster.connect("resolver"); Statement s = c.createStatement(); ResultSet rs =
                s.executeQuery("SELECT catalog, epoch, position FROM resolver.stream_cursor WHERE fenced_at IS NULL")) {
            while (rs.next()) {
                if (cluster.catalogs.contains(rs.getString(1))) {
                    out.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
                }
            }
        }
        return out;
    }

    private static String show(Map<String, long[]> cursors) {
        return cursors.entrySet().stream().map(e -> e.getKey() + " e" + e.getValue()[0] + ":" + e.getValue()[1])
                .collect(Collectors.joining(", "));
    }

    /**
     * The streams whose writes acknowledged before the promotion (by the old primary: the new one accepted none yet)
     * went past what the new primary has in their open epoch.
     */
    private List<Checker.LostTail> lostTails(Map<String, long[]> survived, long promotedNanos) {
        List<Checker.LostTail> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : survived.entrySet()) {
            long epoch = e.getValue()[0];
            if (ackedThrough(e.getKey(), epoch, promotedNanos) > e.getValue()[1]) {
                out.add(new Checker.LostTail(e.getKey(), epoch, e.getValue()[1]));
            }
        }
        return out;
    }

    private long ackedThrough(String c, long epoch, long beforeNanos) {
        return history.ops.stream().filter(o -> o.outcome == History.Outcome.OK && o.catalog.equals(c)
                && o.epoch == epoch && o.endNanos <= beforeNanos).mapToLong(o -> o.lastPosition).max().orElse(0);
    }

    /**
     * Per stream, the items the lost tails' acknowledged writes touched → the markers of those writes: first the
     * items of lost releases (only a released revision is publicly visible), then the rest, at most 12 per stream.
     */
    private Map<String, Map<String, String>> lostItems(List<Checker.LostTail> tails) {
        Map<String, Map<String, String>> out = new java.util.TreeMap<>();
        List<History.Op> lost = new ArrayList<>();
        for (History.Op op : history.ops) {
            if (tails.stream().anyMatch(t -> t.holds(op))) {
                lost.add(op);
            }
        }
        lost.sort(java.util.Comparator.comparing(op -> op.kind.equals("release") ? 0 : 1));
        for (History.Op op : lost) {
            Map<String, String> items = out.computeIfAbsent(op.catalog, k -> new java.util.LinkedHashMap<>());
            for (String item : op.items) {
                if (items.size() < 12 || items.containsKey(item)) {
                    items.merge(item, String.join(" ", op.markers), (x, y) -> x + " " + y);
                }
            }
        }
        // a lost write's marker may also be in a kept item's lost release: every lost marker counts for every item
        for (Map.Entry<String, Map<String, String>> e : out.entrySet()) {
            String all = lost.stream().filter(op -> op.catalog.equals(e.getKey()))
                    .flatMap(op -> op.markers.stream()).collect(Collectors.joining(" "));
            e.getValue().replaceAll((item, markers) -> all);
        }
        return out;
    }

    /** Whether a product instance serves some stream past the standby's cursor of it. */
    private boolean productAhead(Map<String, Long> standby) {
        for (String c : cluster.catalogs) {
            for (int i = 0; i < 2; i++) {
                try {
                    JsonNode pc = cluster.get(cluster.productUrl(i) + "/v1/streams/" + Cluster.TENANT + "/" + c
                            + "/projection-checksum");
                    if (pc.path("epoch").longValue() == cluster.epoch(c)
                            && pc.path("position").longValue() > standby.getOrDefault(c, Long.MAX_VALUE)) {
                        return true;
                    }
                } catch (Exception e) {
                    // asked again
                }
            }
        }
        return false;
    }

    /**
     * After a promotion, every 250 ms: the resolver's rolled back streams (their {@code rolledBackAt}), public reads
     * of the lost items on both products (an answer carrying a lost write's marker serves the lost tail: a violation
     * more than {@link #READERS_WINDOW_MS} after that stream's detection), and, from the rotation on (at once for a
     * synchronous failover), whether both products serve every watched stream's epoch at or past the resolver's
     * head of then. Ends converged (and 3 s later) or 150 s after the promotion.
     */
    private void watch(Failover f, List<String> streams, Map<String, Map<String, String>> lostItems)
            throws Exception {
        boolean sync = f.kind == Kind.FAILOVER_SYNC;
        Map<String, long[]> targets = null;
        long end = f.promotedNanos + 150_000_000_000L;
        long stopAt = Long.MAX_VALUE;
        while (System.nanoTime() < Math.min(end, stopAt)) {
            if (!sync && !f.detectedNanos.keySet().containsAll(streams)) {
                detect(f);
            }
            sampleReads(f, lostItems);
            if (targets == null && (sync || f.rotatedNanos != 0)) {
                targets = heads(streams);
            }
            if (targets != null && f.convergedNanos == 0 && converged(targets)) {
                f.convergedNanos = System.nanoTime();
                stopAt = f.convergedNanos + 3_000_000_000L;
                if (sync) {
                    try {
                        JsonNode listed = cluster.get(cluster.resolverUrl(0) + "/v1/streams?rolledBack=true");
                        if (!listed.path("streams").isEmpty()) {
                            violations.add("FAILOVER_SYNC: streams listed rolled back after a synchronous failover: "
                                    + listed.path("streams"));
                        }
                    } catch (Exception e) {
                        f.notes.add("rolled back listing failed: " + e);
                    }
                }
            }
            Thread.sleep(250);
        }
        if (f.convergedNanos == 0) {
            f.notes.add("products not at the heads " + (targets == null ? "" : showTargets(targets))
                    + " within 150 s of the promotion");
        }
    }

    static final long READERS_WINDOW_MS = 5000;

    private void detect(Failover f) {
        try {
            JsonNode listed = cluster.get(cluster.resolverUrl(0) + "/v1/streams?rolledBack=true");
            long nowNanos = System.nanoTime();
            long nowMs = System.currentTimeMillis();
            for (JsonNode s : listed.path("streams")) {
                String c = s.path("catalog").stringValue();
                if (s.path("rolledBack").booleanValue() && !f.detectedNanos.containsKey(c)) {
                    long at = s.path("rolledBackAt").isString()
                            ? java.time.Instant.parse(s.path("rolledBackAt").stringValue()).toEpochMilli() : nowMs;
                    f.detectedNanos.put(c, nowNanos - Math.max(0, nowMs - at) * 1_000_000);
                    aimLog(f.kind, "detected", c + " listed rolled back " + f.sincePromotion(f.detectedNanos.get(c))
                            + " ms after the promotion (cursor " + s.path("cursor") + ")");
                }
            }
        } catch (Exception e) {
            // the resolver may be reconnecting: asked again
        }
    }

    private void sampleReads(Failover f, Map<String, Map<String, String>> lostItems) {
        for (Map.Entry<String, Map<String, String>> e : lostItems.entrySet()) {
            String c = e.getKey();
            for (Map.Entry<String, String> item : e.getValue().entrySet()) {
                for (int i = 0; i < 2; i++) {
                    Cluster.Response r;
                    try {
                        r = cluster.call("GET", cluster.productUrl(i) + "/v1/catalog/" + Cluster.TENANT + "/" + c
                                + "/items/" + item.getKey(), null, null);
                    } catch (Exception ex) {
                        f.readStatuses.merge("error", 1, Integer::sum);
                        continue;
                    }
                    long now = System.nanoTime();
                    f.publicReads.incrementAndGet();
                    String code = r.status() == 200 ? "200" : r.status() + " " + codeOf(r.body());
                    f.readStatuses.merge(code, 1, Integer::sum);
                    if (r.status() != 200) {
                        continue;
                    }
                    for (String marker : item.getValue().split(" ")) {
                        if (r.body().contains("\"" + marker + "\"")) {
                            f.lostServed.incrementAndGet();
                            f.lastLostServedNanos.put(c, now);
                            Long detected = f.detectedNanos.get(c);
                            long since = detected == null ? f.sincePromotion(now) : (now - detected) / 1_000_000;
                            if ((detected == null && f.sincePromotion(now) > 30_000)
                                    || (detected != null && since > READERS_WINDOW_MS)) {
                                String what = "product-" + i + " served " + c + "/" + item.getKey() + " with lost "
                                        + marker + " " + since + " ms after " + (detected == null ? "the promotion"
                                        : "the resolver's detection") + ": " + r.body();
                                f.lateServes.add(what);
                                violations.add("FAILOVER_ASYNC_LOST_TAIL: " + what);
                            }
                            break;
                        }
                    }
                }
            }
        }
    }

    private static String codeOf(String body) {
        try {
            return String.valueOf(Cluster.JSON.readTree(body).path("code").stringValue());
        } catch (RuntimeException e) {
            return "?";
        }
    }

    /** Per stream, the resolver's open cursor (epoch, position), asked until it answers. */
    private Map<String, long[]> heads(List<String> streams) throws InterruptedException {
        Map<String, long[]> out = new java.util.TreeMap<>();
        for (String c : streams) {
            for (int n = 0; n < 100 && !out.containsKey(c); n++) {
                try {
                    JsonNode k = cluster.get(cluster.resolverUrl(n % 2) + "/v1/streams/" + Cluster.TENANT + "/" + c
                            + "/cursor");
                    out.put(c, new long[] {k.path("epoch").longValue(), k.path("position").longValue()});
                } catch (Exception e) {
                    Thread.sleep(200);
                }
            }
        }
        return out;
    }

    private static String showTargets(Map<String, long[]> t) {
        return show(t);
    }

    /** Both products serve every stream's epoch at or past its target position. */
    private boolean converged(Map<String, long[]> targets) {
        try {
            for (Map.Entry<String, long[]> e : targets.entrySet()) {
                for (int i = 0; i < 2; i++) {
                    JsonNode pc = cluster.get(cluster.productUrl(i) + "/v1/streams/" + Cluster.TENANT + "/"
                            + e.getKey() + "/projection-checksum");
                    long epoch = pc.path("epoch").longValue();
                    if (epoch < e.getValue()[0] || (epoch == e.getValue()[0]
                            && pc.path("position").longValue() < e.getValue()[1])) { // a later rotation counts too
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
