package com.acme.catalog.product.completeness;

import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.completeness.CompletenessView;
import com.acme.catalog.product.completeness.CompletenessRepository.Serving;
import com.acme.catalog.product.completeness.CompletenessRepository.StreamInputs;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.epoch.StreamRollbacks;
import com.acme.catalog.product.projection.ProjectionVersion;
import com.acme.catalog.product.rebuild.Rebuild;
import com.acme.catalog.product.rebuild.RebuildPhase;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.recovery.RecoveryStatusRepository;
import com.acme.catalog.product.recovery.SweepVerifications;
import com.acme.catalog.product.recovery.RecoveryStatusRepository.RecoveryStatus;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Service;

/**
 * Derives a stream's completeness from the serving generation's cursor, its held events, the stream's latest
 * rebuild and the recovery worker's last finding (docs/rebuild.md "Completeness"). Read-only; the worker part
 * reports the recovery worker's lease (or, without one, the rebuild runner), and readiness does not depend on it.
 */
@Service
public class CompletenessService {

    /** One stream's completeness. */
    public record Completeness(long epoch, long verifiedThrough, Instant lastSuccessfulVerification,
            long observedSourceBoundary, CompletenessState state, String reason, boolean workerAlive,
            Instant lastHeartbeat, CompletenessView.Projection projection) {
    }

    private final CompletenessRepository repository;
    private final RebuildService rebuilds;
    private final RecoveryStatusRepository recovery;
    private final MeterRegistry meters;
    private final StreamEpochs epochs;
    private final CompletenessProperties properties;
    private final OldEpochAudit oldEpochs;
    private final SweepVerifications sweeps;
    private final StreamRollbacks rollbacks;
    private final Map<StreamId, AtomicInteger> gauges = new ConcurrentHashMap<>();
    private final ProjectionVersion version;
    /** Per instance, never per stream (docs/metrics.md): the serving versions' range and the streams behind. */
    private final AtomicInteger minServingVersion = new AtomicInteger();
    private final AtomicInteger maxServingVersion = new AtomicInteger();
    private final AtomicInteger streamsBehind = new AtomicInteger();
    /** {@code product_streams{state}}: one series per state, never per stream. */
    private final Map<CompletenessState, AtomicLong> streamsByState = new EnumMap<>(CompletenessState.class);

    CompletenessService(CompletenessRepository repository, RebuildService rebuilds,
            RecoveryStatusRepository recovery, MeterRegistry meters, StreamEpochs epochs,
            CompletenessProperties properties, OldEpochAudit oldEpochs, SweepVerifications sweeps,
            StreamRollbacks rollbacks) {
        this(repository, rebuilds, recovery, meters, epochs, properties, oldEpochs, sweeps, rollbacks,
                new ProjectionVersion(ProjectionVersion.CURRENT));
    }

    @org.springframework.beans.factory.annotation.Autowired
    CompletenessService(CompletenessRepository repository, RebuildService rebuilds,
            RecoveryStatusRepository recovery, MeterRegistry meters, StreamEpochs epochs,
            CompletenessProperties properties, OldEpochAudit oldEpochs, SweepVerifications sweeps,
            StreamRollbacks rollbacks, ProjectionVersion version) {
        this.version = version;
        Gauge.builder("product.projection.version.code", version, ProjectionVersion::current)
                .description("the projection version this instance builds generations with").register(meters);
        Gauge.builder("product.projection.serving.version.min", minServingVersion, AtomicInteger::get)
                .description("the oldest projection version any stream is served by (0: no stream served)")
                .register(meters);
        Gauge.builder("product.projection.serving.version.max", maxServingVersion, AtomicInteger::get)
                .description("the newest projection version any stream is served by (0: no stream served)")
                .register(meters);
        Gauge.builder("product.projection.streams.behind", streamsBehind, AtomicInteger::get)
                .description("streams served by an older projection version than this instance's (an upgrade to "
                        + "rebuild)").register(meters);
        for (CompletenessState state : CompletenessState.values()) {
            AtomicLong count = new AtomicLong();
            streamsByState.put(state, count);
            Gauge.builder("product.streams", count, AtomicLong::get)
                    .description("streams the product holds in each completeness state (from the completeness "
                            + "refresh; the same on every instance)").tag("state", state.name()).register(meters);
        }
        this.repository = repository;
        this.rebuilds = rebuilds;
        this.recovery = recovery;
        this.meters = meters;
        this.epochs = epochs;
        this.properties = properties;
        this.oldEpochs = oldEpochs;
        this.sweeps = sweeps;
        this.rollbacks = rollbacks;
    }

    public Completeness of(StreamId s) {
        Completeness c = derive(s, repository.serving(s), rebuilds.latest(s), repository.workerLease(s),
                recovery.find(s));
        gauge(s).set(c.state().code());
        return c;
    }

    /**
     * Every stream the product holds with its completeness, derived exactly as {@link #of} derives one stream's,
     * from two statements for all streams together (the inputs and the latest rebuilds), never from statements per
     * stream.
     */
    FleetCompleteness fleet() {
        Map<StreamId, Rebuild> latest = new HashMap<>(rebuilds.latestOfAll());
        Map<StreamId, Completeness> all = new HashMap<>();
        for (StreamInputs in : repository.fleet()) {
            all.put(in.stream(), derive(in.stream(), in.serving(), Optional.ofNullable(latest.remove(in.stream())),
                    in.lease(), in.worker()));
        }
        // a stream whose other rows went between the two reads still has its rebuild
        latest.forEach((s, r) -> all.put(s, derive(s, Optional.empty(), Optional.of(r), Optional.empty(),
                Optional.empty())));
        return new FleetCompleteness(all);
    }

    /** Why the generation holds history the resolver reports rolled back, if it does (never CURRENT then). */
    private Optional<String> lostHistory(StreamId s, Serving g) {
        return rollbacks.lostHistory(s, g.epoch(), g.appliedPosition(), g.chainPosition(), g.chainDigest());
    }

    private Completeness derive(StreamId s, Optional<Serving> serving, Optional<Rebuild> rebuild,
            Optional<CompletenessRepository.WorkerLease> lease, Optional<RecoveryStatus> worker) {
        boolean running = rebuild.isPresent() && !isFinal(rebuild.get().phase());
        Instant heartbeat = rebuild.map(Rebuild::updatedAt).orElse(null);
        boolean alive = running && heartbeat != null
                && heartbeat.isAfter(Instant.now().minus(properties.heartbeatStale()));
        if (lease.isPresent()) {
            alive = lease.get().valid();
            heartbeat = lease.get().renewedAt();
        }
        Optional<RecoveryStatus> trouble = worker.filter(w -> !"OK".equals(w.state()));
        CompletenessState state;
        String reason = null;
        if (serving.isEmpty()) {
            if (trouble.isPresent() && !running) {
                state = CompletenessState.valueOf(trouble.get().state());
                reason = troubleReason(trouble.get());
            } else if (running) {
                state = rebuild.get().attempt() > 1 ? CompletenessState.RETRYING : CompletenessState.CATCHING_UP;
                reason = "REBUILDING: " + rebuild.get().phase();
            } else {
                state = CompletenessState.BLOCKED;
                reason = rebuild.isPresent() && rebuild.get().phase() == RebuildPhase.FAILED
                        ? "REBUILD_FAILED: " + rebuild.get().error() : "NO_SERVING_GENERATION";
            }
            return new Completeness(1, 0, null, 0, state, reason, alive, heartbeat,
                    new CompletenessView.Projection(null, null, version.current()));
        }
        Serving g = serving.get();
        long boundary = Math.max(g.highestSeen(), g.chainPosition());
        if (worker.isPresent() && worker.get().observedBoundary() != null
                && Long.valueOf(g.epoch()).equals(worker.get().observedEpoch())) {
            boundary = Math.max(boundary, worker.get().observedBoundary());
        }
        long current = epochs.current(s);
        if (current > g.epoch()) {
            state = CompletenessState.BLOCKED;
            reason = "EPOCH_CHANGED: the product serves epoch " + g.epoch() + " but the current epoch is " + current
                    + (running ? "; rebuilding from an export of it (" + rebuild.get().phase() + ")"
                            : "; the recovery worker rebuilds from an export of it");
        } else if (g.divergence() != null) {
            state = CompletenessState.BLOCKED;
            reason = "CHAIN_DIVERGED: " + g.divergence() + (running ? "; rebuilding (" + rebuild.get().phase() + ")"
                    : "; a rebuild replaces the generation");
        } else if (lostHistory(s, g).isPresent()) {
            state = CompletenessState.BLOCKED;
            reason = "HISTORY_ROLLED_BACK: " + lostHistory(s, g).get() + (running ? "; rebuilding ("
                    + rebuild.get().phase() + ")" : "; public reads are refused until it is rebuilt");
        } else if (g.parked() > 0) {
            state = CompletenessState.BLOCKED;
            reason = "PARKED_EVENTS: " + g.parked() + " event(s) wait for a dependency";
        } else if (trouble.isPresent() && "BLOCKED".equals(trouble.get().state())) {
            state = CompletenessState.BLOCKED;
            reason = troubleReason(trouble.get());
        } else if (running && rebuild.get().attempt() > 1) {
            state = CompletenessState.RETRYING;
            reason = "REBUILD_RETRYING: attempt " + rebuild.get().attempt() + " after " + rebuild.get().error();
        } else if (trouble.isPresent()) {
            state = CompletenessState.RETRYING;
            reason = troubleReason(trouble.get());
        } else if (running && g.buildingVersion() != null && g.buildingVersion() > g.projectionVersion()) {
            state = CompletenessState.CATCHING_UP;
            reason = "PROJECTION_UPGRADE: building projection version " + g.buildingVersion() + " ("
                    + rebuild.get().phase() + ") while version " + g.projectionVersion() + " serves";
        } else if (running) {
            state = CompletenessState.CATCHING_UP;
            reason = "REBUILDING: " + rebuild.get().phase();
        } else if (g.appliedPosition() < boundary || g.pending() > 0) {
            state = CompletenessState.CATCHING_UP;
            reason = "BEHIND_OBSERVED_BOUNDARY";
        } else {
            state = CompletenessState.CURRENT;
        }
        return new Completeness(g.epoch(), g.appliedPosition(), lastVerification(s, g), boundary, state, reason,
                alive, heartbeat, new CompletenessView.Projection(g.projectionVersion(), g.buildingVersion(),
                        version.current()));
    }

    /**
     * The generation's last cursor change (every one is a verified apply), or later the stream sweep's finding that
     * it still equals the resolver's head, if the generation has not moved since.
     */
    private Instant lastVerification(StreamId s, Serving g) {
        Instant cursor = g.updatedAt();
        return sweeps.of(s).filter(v -> v.epoch() == g.epoch() && v.position() == g.appliedPosition())
                .map(SweepVerifications.Verified::at).filter(at -> cursor == null || at.isAfter(cursor))
                .orElse(cursor);
    }

    private static String troubleReason(RecoveryStatus w) {
        return w.reason() + " (" + w.failures() + " failure(s) in a row"
                + (w.nextAttemptAt() == null ? "" : ", next attempt at " + w.nextAttemptAt()) + ")";
    }

    /**
     * Keeps {@code product_completeness_state} current for every known stream and {@code product_streams{state}}
     * counting them (two statements for all streams, not any per stream: docs/streams.md), and registers the
     * per-tenant old-epoch counter of its tenant (the contract: at 0 before its first increment) when counters are
     * per tenant. Run by {@link CompletenessScheduler}.
     */
    void refresh() {
        FleetCompleteness fleet = fleet();
        int min = Integer.MAX_VALUE;
        int max = 0;
        int behind = 0;
        for (Map.Entry<StreamId, Completeness> e : fleet.streams().entrySet()) {
            gauge(e.getKey()).set(e.getValue().state().code());
            oldEpochs.known(e.getKey());
            Integer serving = e.getValue().projection().servingVersion();
            if (serving != null) {
                min = Math.min(min, serving);
                max = Math.max(max, serving);
                behind += serving < version.current() ? 1 : 0;
            }
        }
        minServingVersion.set(max == 0 ? 0 : min);
        maxServingVersion.set(max);
        streamsBehind.set(behind);
        fleet.byState().forEach((state, n) -> streamsByState.get(state).set(n));
    }

    /** The contract's answer of {@code GET /v1/projection-completeness}. */
    public static CompletenessView toView(Completeness c) {
        return new CompletenessView(c.epoch(), c.verifiedThrough(), c.lastSuccessfulVerification(),
                c.observedSourceBoundary(), c.state().name(), c.reason(),
                new CompletenessView.Worker(c.workerAlive(), c.lastHeartbeat()), c.projection());
    }

    private static boolean isFinal(RebuildPhase p) {
        return p == RebuildPhase.DONE || p == RebuildPhase.FAILED || p == RebuildPhase.ABORTED;
    }

    private AtomicInteger gauge(StreamId stream) {
        return gauges.computeIfAbsent(stream, s -> {
            AtomicInteger value = new AtomicInteger(-1);
            Gauge.builder("product.completeness.state", value, AtomicInteger::get)
                    .description("0 CURRENT, 1 CATCHING_UP, 2 RETRYING, 3 BLOCKED")
                    .tag("tenant", s.tenant()).tag("catalog", s.catalog()).register(meters);
            return value;
        });
    }
}
