package com.acme.catalog.product.lease;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * This instance's worker leases, one row per stream in {@code recovery_lease}, decided by the database clock
 * ({@code clock_timestamp()}). Acquiring takes a free, expired or own row and always bumps its fence; renewing
 * needs owner, fence and an unexpired row. {@link #requireHeld} is the fence check every worker write transaction
 * runs last, holding the row lock until it commits, so a replaced worker cannot commit and a takeover cannot
 * interleave with an in-flight write. Held leases are renewed in the background and released on shutdown.
 * Per instance (docs/metrics.md): {@code product_recovery_lease_held}, how many streams' leases this instance
 * holds, and {@code product_recovery_lease_lost_total}, leases it stopped holding without releasing them (expired
 * or taken over: frequent losses mean instances take leases from each other).
 */
public class WorkerLeases implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WorkerLeases.class);

    private static final String SQL_ACQUIRE = """
            INSERT INTO recovery_lease AS l (tenant, catalog, owner, fence, acquired_at, renewed_at, expires_at,
                                             projection_version)
            VALUES (?, ?, ?, 1, clock_timestamp(), clock_timestamp(), clock_timestamp() + make_interval(secs => ?), ?)
            ON CONFLICT (tenant, catalog) DO UPDATE
               SET owner = excluded.owner, fence = l.fence + 1, acquired_at = excluded.acquired_at,
                   renewed_at = excluded.renewed_at, expires_at = excluded.expires_at,
                   projection_version = excluded.projection_version
             WHERE l.owner = excluded.owner OR l.expires_at <= clock_timestamp()
                OR l.projection_version < excluded.projection_version
            RETURNING fence
            """;
    private static final String SQL_RENEW = """
            UPDATE recovery_lease SET renewed_at = clock_timestamp(),
                                      expires_at = clock_timestamp() + make_interval(secs => ?)
             WHERE tenant = ? AND catalog = ? AND owner = ? AND fence = ? AND expires_at > clock_timestamp()
            """;
    /**
     * {@link #SQL_RENEW} for every lease this instance holds, in one statement: answers the leases renewed; a held
     * lease missing from the answer was lost. Parameters: ttl, tenants, catalogs, fences, owner.
     */
    private static final String SQL_RENEW_ALL = """
            UPDATE recovery_lease l SET renewed_at = clock_timestamp(),
                                        expires_at = clock_timestamp() + make_interval(secs => ?)
              FROM unnest(?::text[], ?::text[], ?::bigint[]) AS h(tenant, catalog, fence)
             WHERE l.tenant = h.tenant AND l.catalog = h.catalog AND l.fence = h.fence AND l.owner = ?
               AND l.expires_at > clock_timestamp()
            RETURNING l.tenant, l.catalog
            """;
    private static final String SQL_RELEASE = """
            UPDATE recovery_lease SET expires_at = clock_timestamp()
             WHERE tenant = ? AND catalog = ? AND owner = ? AND fence = ? AND expires_at > clock_timestamp()
            """;
    private static final String SQL_LOCK = """
            SELECT owner, fence, expires_at > clock_timestamp() AS valid
              FROM recovery_lease WHERE tenant = ? AND catalog = ? FOR UPDATE
            """;
    private static final String SQL_IS_HELD = """
            SELECT count(*) FROM recovery_lease
             WHERE tenant = ? AND catalog = ? AND owner = ? AND fence = ? AND expires_at > clock_timestamp()
            """;
    private static final String SQL_OWNER = """
            SELECT owner FROM recovery_lease WHERE tenant = ? AND catalog = ? AND expires_at > clock_timestamp()
            """;

    private final JdbcClient jdbc;
    private final String owner;
    private final long ttlSeconds;
    private final int projectionVersion;
    private final Map<StreamId, WorkerFence> held = new ConcurrentHashMap<>();
    private final Counter lostLeases;
    private final List<Consumer<WorkerFence>> acquiredListeners = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService renewer;
    private volatile boolean running;
    /** After {@link #stop}: nothing is acquired any more, so the released leases stay released. */
    private volatile boolean stopped;

    /**
     * @param instanceId this instance's owner id ({@code product.recovery.instance-id}); blank: a random one
     * @param ttlSeconds how long a lease lasts unrenewed ({@code product.recovery.lease-ttl})
     */
    public WorkerLeases(JdbcClient jdbc, MeterRegistry meters, String instanceId, long ttlSeconds) {
        this(jdbc, meters, instanceId, ttlSeconds, 1);
    }

    /**
     * @param projectionVersion this instance's projection version: an instance of a newer version takes a stream's
     *                          lease over from a live holder of an older one (whose fence then fails, as on any
     *                          takeover), so that it can rebuild the stream to its version during a rolling upgrade;
     *                          an older one never takes it from a newer one before that lease expires
     */
    public WorkerLeases(JdbcClient jdbc, MeterRegistry meters, String instanceId, long ttlSeconds,
            int projectionVersion) {
        this.jdbc = jdbc;
        this.projectionVersion = projectionVersion;
        this.owner = instanceId.isBlank() ? "product-" + java.util.UUID.randomUUID() : instanceId;
        this.ttlSeconds = ttlSeconds;
        Gauge.builder("product.recovery.lease.held", held, Map::size)
                .description("streams whose recovery worker lease this instance holds").register(meters);
        this.lostLeases = Counter.builder("product.recovery.lease.lost")
                .description("worker leases this instance lost without releasing them (expired or taken over)")
                .register(meters);
    }

    /** @return this instance's owner id, as stored in {@code recovery_lease.owner} */
    public String owner() {
        return owner;
    }

    /** Runs after every acquisition (a new fence), before {@link #hold} returns it. */
    public void onAcquired(Consumer<WorkerFence> listener) {
        acquiredListeners.add(listener);
    }

    /**
     * @return the fence this instance holds for {@code stream}, acquiring the lease (with a new fence) when it
     *         holds none; empty while another instance holds an unexpired lease, and after shutdown began
     */
    public synchronized Optional<WorkerFence> hold(StreamId stream) {
        WorkerFence current = held.get(stream);
        if (current != null) {
            return Optional.of(current);
        }
        if (stopped) {
            return Optional.empty();
        }
        Optional<Long> fence = jdbc.sql(SQL_ACQUIRE).params(stream.tenant(), stream.catalog(), owner, ttlSeconds,
                projectionVersion)
                .query(Long.class).optional();
        if (fence.isEmpty()) {
            return Optional.empty();
        }
        WorkerFence acquired = new WorkerFence(stream, owner, fence.get());
        held.put(stream, acquired);
        log.info("{}: acquired the worker lease with fence {}", stream, acquired.fence());
        for (Consumer<WorkerFence> l : acquiredListeners) {
            l.accept(acquired);
        }
        return Optional.of(acquired);
    }

    /** @return the fence this instance believes it holds; the database decides at {@link #requireHeld} */
    public Optional<WorkerFence> current(StreamId stream) {
        return Optional.ofNullable(held.get(stream));
    }

    /** @return the owner of the stream's unexpired lease, if any */
    public Optional<String> holder(StreamId stream) {
        return jdbc.sql(SQL_OWNER).params(stream.tenant(), stream.catalog()).query(String.class).optional();
    }

    /** @return whether the database still has {@code f} as the stream's unexpired lease; forgets it otherwise */
    public boolean isHeld(WorkerFence f) {
        boolean ok = jdbc.sql(SQL_IS_HELD).params(f.stream().tenant(), f.stream().catalog(), f.owner(), f.fence())
                .query(Long.class).single() == 1;
        if (!ok) {
            lost(f);
        }
        return ok;
    }

    /** @return false when the lease was lost (expired, taken over); it is then no longer held */
    public boolean renew(WorkerFence f) {
        boolean ok = jdbc.sql(SQL_RENEW).params(ttlSeconds, f.stream().tenant(), f.stream().catalog(), f.owner(),
                f.fence()).update() == 1;
        if (!ok) {
            lost(f);
        }
        return ok;
    }

    /** Gives the lease up (it expires now); the next acquirer bumps the fence. */
    public void release(WorkerFence f) {
        jdbc.sql(SQL_RELEASE).params(f.stream().tenant(), f.stream().catalog(), f.owner(), f.fence()).update();
        held.remove(f.stream(), f); // given up, not lost
    }

    /**
     * The fence check: locks the stream's lease row until the caller's transaction ends and requires it to be
     * {@code f}'s owner and fence, unexpired. Call it as the last statement of every worker write transaction.
     *
     * @throws FencedOutException otherwise; the caller's transaction must roll back
     */
    public void requireHeld(WorkerFence f) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the fence check needs the writing transaction");
        }
        List<Optional<String>> rows = jdbc.sql(SQL_LOCK).params(f.stream().tenant(), f.stream().catalog())
                .query((rs, n) -> !rs.getString("owner").equals(f.owner()) || rs.getLong("fence") != f.fence()
                        ? Optional.of("now held by " + rs.getString("owner") + " with fence " + rs.getLong("fence"))
                        : rs.getBoolean("valid") ? Optional.<String>empty() : Optional.of("expired"))
                .list();
        Optional<String> refused = rows.isEmpty() ? Optional.of("no lease row") : rows.get(0);
        if (refused.isPresent()) {
            lost(f);
            throw new FencedOutException("worker lease of " + f + " no longer holds: " + refused.get());
        }
    }

    private void lost(WorkerFence f) {
        if (held.remove(f.stream(), f)) {
            lostLeases.increment();
            log.warn("{}: no longer holds the worker lease (fence {})", f.stream(), f.fence());
        }
    }

    /** Renews every held lease in one statement (not one per stream); those not renewed were lost. */
    void renewAll() {
        List<WorkerFence> fences = List.copyOf(held.values());
        if (fences.isEmpty()) {
            return;
        }
        Set<StreamId> renewed = new HashSet<>();
        try {
            jdbc.sql(SQL_RENEW_ALL).params(ttlSeconds,
                    fences.stream().map(f -> f.stream().tenant()).toArray(String[]::new),
                    fences.stream().map(f -> f.stream().catalog()).toArray(String[]::new),
                    fences.stream().map(WorkerFence::fence).toArray(Long[]::new), owner)
                    .query((RowCallbackHandler) rs -> renewed.add(
                            new StreamId(rs.getString("tenant"), rs.getString("catalog"))));
        } catch (RuntimeException e) {
            log.warn("could not renew the {} worker lease(s) held: {}", fences.size(), e.toString());
            return;
        }
        for (WorkerFence f : fences) {
            if (!renewed.contains(f.stream())) {
                lost(f);
            }
        }
    }

    @Override
    public synchronized void start() {
        long period = Math.max(1, ttlSeconds * 1000 / 3);
        renewer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("worker-lease-renewer"));
        renewer.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
        running = true;
    }

    /** Releases every held lease, so another instance takes over at once instead of after the TTL. */
    @Override
    public synchronized void stop() {
        running = false;
        stopped = true;
        if (renewer != null) {
            renewer.shutdownNow();
        }
        for (WorkerFence f : List.copyOf(held.values())) {
            try {
                release(f);
                log.info("{}: released the worker lease (fence {})", f.stream(), f.fence());
            } catch (RuntimeException e) {
                log.warn("{}: could not release the worker lease: {}", f.stream(), e.toString());
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops late (after the worker and the rebuild runners, which use the leases) and starts early. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }
}
