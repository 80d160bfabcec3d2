package com.acme.catalog.product.rebuild;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.lease.WorkerLeases;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 7, its catch-up: applies the retained events after W to the shadow generation page by page, one
 * fenced transaction each, with the live apply code (same dedupe, revision checks and parking), until a page
 * reaches the head. One page ahead is fetched, chain-verified and parsed on another thread while the current one
 * applies ({@code catchUp.fetch} is the time the apply waited for a page).
 */
@Component
class CatchUpStep {

    private final RetainedPages pages;
    private final GenerationRepository generations;
    private final EventApplier applier;
    private final WorkerLeases leases;
    private final RebuildRepository rebuilds;
    private final RebuildMetrics metrics;
    private final RebuildProbe probe;
    private final TransactionTemplate tx;

    CatchUpStep(RetainedPages pages, GenerationRepository generations, EventApplier applier, WorkerLeases leases,
            RebuildRepository rebuilds, RebuildMetrics metrics, RebuildProbe probe, PlatformTransactionManager tm) {
        this.pages = pages;
        this.generations = generations;
        this.applier = applier;
        this.leases = leases;
        this.rebuilds = rebuilds;
        this.metrics = metrics;
        this.probe = probe;
        this.tx = new TransactionTemplate(tm);
    }

    CaughtUp catchUp(LoadedShadow loaded) throws Exception {
        Pinned p = loaded.pinned();
        Started a = p.started();
        long startNanos = System.nanoTime();
        long events = 0;
        long waitNanos = 0;
        long applyNanos = 0;
        boolean probed = false;
        GenerationCursor shadow = tx.execute(s -> generations.lockGeneration(loaded.generation()).orElseThrow());
        a.progress().catchingUp(shadow.chainPosition());
        ExecutorService fetcher = Executors.newSingleThreadExecutor(DaemonThreads.named("rebuild-fetch"));
        try {
            Future<RetainedPages.PreparedPage> next = fetcher.submit(() -> pages.read(p, shadow.chainPosition(),
                    shadow.chainDigest()));
            while (true) {
                long t0 = System.nanoTime();
                RetainedPages.PreparedPage page = await(next);
                long t1 = System.nanoTime();
                boolean last = page.reachesHead();
                if (!last) {
                    next = fetcher.submit(() -> pages.read(p, page.page().through(), page.digestThrough()));
                }
                int applied = applyPage(loaded, page);
                events += applied;
                metrics.caughtUp(a.stream(), applied, events, System.nanoTime() - startNanos);
                a.progress().page(page.page().through(), page.page().head(), applied);
                waitNanos += t1 - t0;
                applyNanos += System.nanoTime() - t1;
                if (!probed) {
                    probed = true;
                    probe.reached(RebuildPhase.CATCHING_UP);
                }
                p.keeper().check();
                if (last) {
                    break;
                }
            }
        } finally {
            fetcher.shutdownNow();
        }
        p.keeper().renewNow();
        rebuilds.steps(a.id(), Map.of("catchUp.fetch", waitNanos / 1_000_000, "catchUp.apply",
                applyNanos / 1_000_000, "catchUp.events", events));
        return new CaughtUp(loaded, events, startNanos);
    }

    private static RetainedPages.PreparedPage await(Future<RetainedPages.PreparedPage> page) throws Exception {
        try {
            return page.get();
        } catch (ExecutionException e) {
            // a 410 (GoneException) restarts from a new export: rethrow what the fetch threw
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * Applies a verified page in one fenced transaction, if the shadow still is where the page starts.
     *
     * @return the number of events applied
     */
    private int applyPage(LoadedShadow loaded, RetainedPages.PreparedPage prepared) {
        if (prepared.events().isEmpty()) {
            return 0;
        }
        GenerationCursor after = tx.execute(s -> {
            GenerationCursor locked = generations.lockGeneration(loaded.generation()).orElseThrow();
            if (locked.chainPosition() != prepared.page().after()
                    || !locked.chainDigest().equals(prepared.digestAtAfter())) {
                throw new IllegalStateException("shadow generation " + loaded.generation() + " is at "
                        + locked.chainPosition() + " while a page after " + prepared.page().after() + " was read");
            }
            GenerationCursor applied = applier.apply(locked, prepared.events()).cursor();
            leases.requireHeld(loaded.started().fence());
            return applied;
        });
        rebuilds.progress(loaded.started().id(), after.appliedPosition(), prepared.events().size());
        return prepared.events().size();
    }
}
