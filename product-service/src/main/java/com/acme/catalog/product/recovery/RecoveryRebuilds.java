package com.acme.catalog.product.recovery;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.rebuild.Rebuild;
import com.acme.catalog.product.rebuild.RebuildPhase;
import com.acme.catalog.product.rebuild.RebuildService;
import com.acme.catalog.product.recovery.RecoveryWorker.Outcome;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The rebuilds the recovery worker asks for, through the rebuild service's public API: it starts them (never back to
 * an older projection version), and remembers the one it started last per stream so that one that FAILED fails the
 * next cycle (restarts back off too).
 */
@Component
class RecoveryRebuilds {

    private static final Logger log = LoggerFactory.getLogger(RecoveryRebuilds.class);

    private final RebuildService rebuilds;
    private final GenerationRepository generations;
    private final RecoveryStatusRepository status;
    /** The rebuild the worker started last per stream: a FAILED one counts as a failed cycle. */
    private final Map<StreamId, UUID> started = new ConcurrentHashMap<>();

    RecoveryRebuilds(RebuildService rebuilds, GenerationRepository generations, RecoveryStatusRepository status) {
        this.rebuilds = rebuilds;
        this.generations = generations;
        this.status = status;
    }

    /** Whether a rebuild of the stream runs here; first fails if the rebuild the worker started last FAILED. */
    boolean underWay(StreamId s) {
        UUID id = started.get(s);
        if (id != null) {
            Optional<Rebuild> r = rebuilds.find(id);
            if (r.isEmpty() || r.get().phase().isFinal()) {
                started.remove(s);
            }
            if (r.isPresent() && r.get().phase() == RebuildPhase.FAILED) {
                throw new IllegalStateException("rebuild " + id + " failed: " + r.get().error());
            }
        }
        return rebuilds.runsHere(s);
    }

    Outcome start(StreamId s, String why) {
        return start(s, RebuildService.Reason.RECOVERY, why);
    }

    /**
     * Starts a rebuild, unless the stream has a generation or an unfinished rebuild of a newer projection version than
     * this instance's: an older instance never rebuilds a stream back (docs/runbooks/projection-upgrade.md).
     */
    Outcome start(StreamId s, RebuildService.Reason reason, String why) {
        Optional<Integer> newer = rebuilds.newerVersion(s);
        if (newer.isPresent()) {
            log.info("{}: would rebuild ({}), but the stream has projection version {}, newer than this instance's "
                    + "{}: left to an instance of that version", s, why, newer.get(), generations.version().current());
            return Outcome.IDLE;
        }
        UUID id = rebuilds.start(s, reason);
        started.put(s, id);
        log.info("{}: recovery started rebuild {}: {}", s, id, why);
        status.ok(s, null, null, false);
        return Outcome.REBUILDING;
    }
}
