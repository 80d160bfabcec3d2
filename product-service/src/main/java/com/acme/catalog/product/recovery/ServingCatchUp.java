package com.acme.catalog.product.recovery;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.inbox.DeliveryParser;
import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.lease.FencedOutException;
import com.acme.catalog.product.lease.WorkerFence;
import com.acme.catalog.product.lease.WorkerLeases;
import com.acme.catalog.product.progress.ProgressReporter;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.rebuild.RestartRequired;
import com.acme.catalog.product.resolver.ResolverClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Catches a stream's serving generation up through {@code GET /v1/exports/events}, under a short retention lease:
 * bounded pages, each chain-verified from the serving digest and applied with the live apply code in one
 * transaction that holds the live lock and ends with the worker's fence check. Events the live path applied
 * meanwhile are duplicates to the applier. Progress is offered for reporting after each commit.
 */
@Component
class ServingCatchUp {

    private static final Logger log = LoggerFactory.getLogger(ServingCatchUp.class);

    /** What one catch-up run did. */
    record Result(GenerationCursor cursor, int pages, long events, boolean reachedHead) {
    }

    /**
     * A page starts from another digest than the serving generation verified at that position: the generation's
     * chain is not the resolver's (the worker marks it and rebuilds).
     */
    static final class DivergedException extends RuntimeException {
        DivergedException(String message) {
            super(message);
        }
    }

    /** The serving generation changed (a cutover) while a page was read: the cycle starts over. */
    static final class SupersededException extends RuntimeException {
        SupersededException(String message) {
            super(message);
        }
    }

    private final ResolverClient resolver;
    private final GenerationRepository generations;
    private final EventApplier applier;
    private final DeliveryParser parser;
    private final WorkerLeases leases;
    private final ProgressReporter progress;
    private final TransactionTemplate tx;
    private final int pageLimit;
    private final StreamEpochs epochs;
    private final OldEpochAudit audit;
    private final long leaseTtlSeconds;

    ServingCatchUp(ResolverClient resolver, GenerationRepository generations, EventApplier applier,
            DeliveryParser parser, WorkerLeases leases, ProgressReporter progress, PlatformTransactionManager tm,
            StreamEpochs epochs, OldEpochAudit audit, RecoveryProperties properties) {
        this.resolver = resolver;
        this.epochs = epochs;
        this.audit = audit;
        this.generations = generations;
        this.applier = applier;
        this.parser = parser;
        this.leases = leases;
        this.progress = progress;
        this.tx = new TransactionTemplate(tm);
        this.pageLimit = properties.pageLimit();
        this.leaseTtlSeconds = properties.resolverLeaseTtl().toSeconds();
    }

    /**
     * @throws ResolverClient.GoneException on a 410 (the caller rebuilds)
     * @throws RestartRequired when a page of an older epoch than the current one arrives (the caller rebuilds)
     * @throws DivergedException when a page starts from another digest than the serving generation's
     * @throws com.acme.catalog.contracts.ApiException {@code CHAIN_BROKEN} when a page does not chain
     * @throws FencedOutException when the worker lost its lease; that page was not written
     */
    Result run(WorkerFence fence, long epoch, int maxPages) {
        StreamId s = fence.stream();
        String leaseId = resolver.createLease(s, epoch, leaseTtlSeconds, "product-recovery-" + fence.owner());
        try {
            GenerationCursor cursor = null;
            long events = 0;
            for (int pages = 1; pages <= maxPages; pages++) {
                GenerationCursor read = generations.serving(s)
                        .orElseThrow(() -> new SupersededException(s + " has no serving generation any more"));
                EventPage page = resolver.events(s, read.chainPosition(), leaseId, epoch, pageLimit);
                cursor = applyPage(fence, read, page);
                events += page.events().size();
                if (page.through() >= page.head()) {
                    return new Result(cursor, pages, events, true);
                }
                resolver.renewLease(leaseId, leaseTtlSeconds);
            }
            return new Result(cursor, maxPages, events, false);
        } finally {
            try {
                resolver.releaseLease(leaseId);
            } catch (RuntimeException e) {
                log.warn("{}: could not release catch-up lease {}: {}", s, leaseId, e.toString());
            }
        }
    }

    /**
     * Verifies {@code page} from the digest of {@code read} (the serving cursor the page was requested after) and
     * applies it to the serving generation in one fenced transaction.
     *
     * @return the serving cursor after the commit
     */
    GenerationCursor applyPage(WorkerFence fence, GenerationCursor read, EventPage page) {
        if (page.after() == read.chainPosition() && !page.chainDigestAfter().equals(read.chainDigest())) {
            throw new DivergedException(ChainDivergence.describe(read.chainPosition(), read.chainDigest(),
                    page.chainDigestAfter()));
        }
        List<EventWire.Split> splits = page.verify(read.chainDigest());
        List<IntegrationEvent> events = new ArrayList<>(splits.size());
        for (EventWire.Split split : splits) {
            events.add(parser.parseWire(split.wire(), split.chainDigest()));
        }
        long current = Math.max(read.epoch(), epochs.current(fence.stream()));
        if (page.epoch() < current) {
            // a page of an old epoch (the resolver answers 410 for one; a page read just before a rotation may
            // still arrive): audited, never applied; the caller rebuilds from the current epoch
            tx.executeWithoutResult(st -> events.forEach(e -> audit.record(e, current, OldEpochAudit.Source.PAGE)));
            audit.count(fence.stream(), OldEpochAudit.Source.PAGE, events.size());
            throw new RestartRequired(RestartRequired.Reason.PAGE_OF_OLD_EPOCH, "a catch-up page of epoch "
                    + page.epoch() + " arrived, the current epoch is " + current);
        }
        GenerationCursor after = tx.execute(st -> {
            GenerationCursor locked = generations.lockServing(fence.stream()).orElseThrow(
                    () -> new SupersededException(fence.stream() + " has no serving generation any more"));
            if (locked.generationId() != read.generationId()) {
                throw new SupersededException(fence.stream() + " switched to generation " + locked.generationId()
                        + " while a catch-up page for " + read.generationId() + " was read");
            }
            GenerationCursor saved = locked;
            if (events.isEmpty()) {
                generations.saveCursor(locked);
            } else {
                saved = applier.apply(locked, events).cursor();
            }
            leases.requireHeld(fence);
            return saved;
        });
        progress.offer(fence.stream(), after.epoch(), after.appliedPosition());
        return after;
    }
}
