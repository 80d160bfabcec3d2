package com.acme.catalog.product.rebuild;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;

import com.acme.catalog.product.lease.WorkerLeases;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 5 (load shadow): loads the READY export into a new BUILDING generation ({@link ShadowLoader})
 * whose attach commits only under the worker fence, and records W, the row count and the load's step durations. The
 * loader commits the generation's row (and its plain tables) before the attach: the caller is told the generation at
 * once ({@code created}), so an abandoned attempt drops it.
 */
@Component
class LoadShadowStep {

    private final ShadowLoader loader;
    private final RebuildRepository rebuilds;
    private final WorkerLeases leases;
    private final RebuildMetrics metrics;
    private final RebuildProbe probe;
    private final TransactionTemplate tx;

    LoadShadowStep(ShadowLoader loader, RebuildRepository rebuilds, WorkerLeases leases, RebuildMetrics metrics,
            RebuildProbe probe, PlatformTransactionManager tm) {
        this.loader = loader;
        this.rebuilds = rebuilds;
        this.leases = leases;
        this.metrics = metrics;
        this.probe = probe;
        this.tx = new TransactionTemplate(tm);
    }

    /** @param created told the shadow generation's id as soon as its row is committed, before anything is loaded */
    LoadedShadow loadShadow(ReadyExport export, LongConsumer created) {
        Started a = export.started();
        long loadStart = System.nanoTime();
        a.progress().loading(export.manifest());
        ShadowLoader.Loaded loaded = tx.execute(s -> {
            ShadowLoader.Loaded l = loader.load(a.stream(), export.manifestKey(), export.manifest(),
                    rows -> rebuilds.loadedRows(a.id(), rows), created, a.progress());
            probe.reached(RebuildPhase.LOADING);
            leases.requireHeld(a.fence());
            return l;
        });
        long w = export.manifest().cursor();
        rebuilds.loaded(a.id(), loaded.generationId(), loaded.rows(), w);
        metrics.loaded(a.stream(), loaded.rows(), System.nanoTime() - loadStart);
        Map<String, Long> loadSteps = new LinkedHashMap<>();
        loaded.stepMillis().forEach((step, ms) -> loadSteps.put("load." + step, ms));
        rebuilds.steps(a.id(), loadSteps);
        // the load made no resolver call: a renewal the keeper could not make restarts (410) or fails the attempt
        export.pinned().keeper().renewNow();
        return new LoadedShadow(export.pinned(), loaded.generationId(), loaded.rows(), w);
    }
}
