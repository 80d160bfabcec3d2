package com.acme.catalog.fault;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The faults, injected one after another at seeded random times while the load runs. The plan (kinds, pauses,
 * durations, targets) is drawn from the seed up front, so a seed replays the same plan.
 */
final class Faults {

    enum Kind {
        /** pg_terminate_backend of every service connection (a burst of three, 200 ms apart) */
        TERMINATE_BACKENDS,
        /** pg_ctl restart -m fast */
        PG_RESTART_FAST,
        /** pg_ctl restart -m immediate: a crash, recovery from WAL */
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
        CURSOR_LOCK
    }

    record Planned(Kind kind, long pauseMs, long durationMs, int target) {
    }

    private final Cluster cluster;
    private final History history;
    final Map<Kind, Integer> injected = java.util.Collections.synchronizedMap(new EnumMap<>(Kind.class));
    /** light faults that found nothing to hit (PostgreSQL down during a restart of the main sequence) */
    final java.util.concurrent.atomic.AtomicInteger lightMissed = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean lightRunning;
    final List<String> violations = new ArrayList<>();
    final List<String> log = new ArrayList<>();
    volatile long lastFaultEndNanos;

    Faults(Cluster cluster, History history) {
        this.cluster = cluster;
        this.history = history;
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

    void stopLight(Thread t) throws InterruptedException {
        lightRunning = false;
        t.interrupt();
        t.join(10_000);
    }

    void run(List<Planned> plan) throws Exception {
        for (Planned p : plan) {
            Thread.sleep(p.pauseMs());
            long t0 = System.nanoTime();
            inject(p);
            lastFaultEndNanos = System.nanoTime();
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
            case PG_RESTART_FAST -> cluster.pg.restart("fast");
            case PG_RESTART_IMMEDIATE -> cluster.pg.restart("immediate");
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
        }
    }

    private static void outage(FaultProxy proxy, FaultProxy.Mode mode, long ms) throws InterruptedException {
        proxy.set(mode);
        Thread.sleep(ms);
        proxy.set(FaultProxy.Mode.PASS);
    }

    /** Terminates every backend of the services (all but the harness's own) on the suite's databases. */
    int terminateBackends() throws Exception {
        try (Connection c = cluster.pg.connect("postgres"); Statement s = c.createStatement();
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
        try (Connection c = cluster.pg.connect("resolver")) {
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
}
