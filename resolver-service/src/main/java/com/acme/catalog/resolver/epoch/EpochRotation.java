package com.acme.catalog.resolver.epoch;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.maintenance.MaintenanceSwitch;
import com.acme.catalog.resolver.epoch.EpochRepository.Current;
import com.acme.catalog.resolver.epoch.RotationRepository.OpenCursor;
import com.acme.catalog.resolver.stream.StreamMetrics;
import com.acme.catalog.resolver.stream.StreamOpening;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code POST /v1/epochs/{tenant}/{catalog}/rotate} (docs/design.md step 9), in one transaction of the resolver's
 * database that holds the maintenance hold (maintenance must be on, and stays on until it ends) and the open cursor's
 * row lock:
 * <ol>
 *   <li>issue epoch N+1 in the control store, N+1 above every epoch the store or the database knows (the store
 *       refuses a second rotation that computed the same number: 409 {@code EPOCH_MISMATCH});</li>
 *   <li>fence the epoch-N cursor (any instance still holding N now fails to commit: the row it would lock is
 *       fenced, the open one is in N+1) and open the epoch-(N+1) cursor at position 0, digest d0, over the accepted
 *       state as it is (restored);</li>
 *   <li>release epoch N's live leases (its running exports cannot turn READY; their loaders see the manifest's
 *       epoch N) and drop its delivery claims; outbox rows, consumer registrations and their progress stay as they
 *       are, in epoch N, never delivered again;</li>
 *   <li>tell the {@link StreamOpening}s: pattern subscribers are registered at position 0 of epoch N+1.</li>
 * </ol>
 * The control store commits first: when the database transaction fails after it, the store is one epoch ahead,
 * writes refuse with {@code HISTORY_ROLLED_BACK}, and rotating again finishes the job with the next number.
 */
@Service
class EpochRotation {

    private static final Logger log = LoggerFactory.getLogger(EpochRotation.class);

    private final TransactionTemplate tx;
    private final MaintenanceSwitch maintenance;
    private final RotationRepository cursors;
    private final EpochRepository epochs;
    private final EpochCache cache;
    private final RollbackDetector detector;
    private final StreamMetrics metrics;
    private final List<StreamOpening> openings;
    private final Counter rotations;

    EpochRotation(TransactionTemplate tx, MaintenanceSwitch maintenance, RotationRepository cursors,
            EpochRepository epochs, EpochCache cache, RollbackDetector detector, StreamMetrics metrics,
            List<StreamOpening> openings, MeterRegistry registry) {
        this.openings = List.copyOf(openings);
        // per instance: the epoch of each stream is in GET /v1/epochs; this says when rotations happened
        this.rotations = Counter.builder("resolver.epoch.rotations")
                .description("epoch rotations this instance completed").register(registry);
        this.tx = tx;
        this.maintenance = maintenance;
        this.cursors = cursors;
        this.epochs = epochs;
        this.cache = cache;
        this.detector = detector;
        this.metrics = metrics;
    }

    /**
     * @return the epoch now open
     * @throws ApiException 409 {@code MAINTENANCE_REQUIRED} unless the resolver is in maintenance, 409
     *                      {@code EPOCH_MISMATCH} when another rotation issued the epoch first, 503
     *                      {@code CONTROL_STORE_UNAVAILABLE}
     */
    long rotate(StreamId s, String reason, String issuer) {
        long epoch = tx.execute(status -> {
            if (!maintenance.holdAndRead()) {
                throw new ApiException(ProblemCode.MAINTENANCE_REQUIRED, "rotating the epoch of " + s + " needs the "
                        + "resolver in maintenance first (POST /v1/admin/maintenance {\"enabled\":true})");
            }
            Optional<OpenCursor> open = cursors.lockOpen(s);
            long current = epochs.current(s).map(Current::epoch).orElse(0L);
            long next = Math.max(current, cursors.newestEpoch(s)) + 1;
            if (!epochs.issue(s, next, reason, issuer)) {
                throw new ApiException(ProblemCode.EPOCH_MISMATCH, "another rotation of " + s + " issued epoch "
                        + next + " first; read GET /v1/epochs/" + s.tenant() + "/" + s.catalog());
            }
            int leases = cursors.fenceAndOpen(s, next);
            openings.forEach(o -> o.opened(s, next));
            log.info("{}: epoch {} issued by {} ({}); epoch {} fenced at position {}, {} lease(s) released", s, next,
                    issuer, reason, open.map(o -> String.valueOf(o.epoch())).orElse("none"),
                    open.map(o -> String.valueOf(o.position())).orElse("-"), leases);
            return next;
        });
        cache.hold(s, epoch, 0);
        metrics.resetPosition(s, 0);
        detector.rotated(s);
        rotations.increment();
        return epoch;
    }
}
