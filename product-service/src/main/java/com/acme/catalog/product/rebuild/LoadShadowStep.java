package com.acme.catalog.product.rebuild;

import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.product.lease.WorkerLeases;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * docs/design.md step 5 (load shadow): loads the READY export into a new BUILDING generation ({@link ShadowLoader})
 * whose attach commits only under the worker fence, and records W, the row count and the load's step durations. The
 * loader commits the generation's row (and its plain tables) before the attach: the attempt knows the generation at
 * once, so an abandoned attempt drops it.
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

    void loadShadow(Attempt a, AwaitExportStep.ReadyExport export) {
        long loadStart = System.nanoTime();
        a.progress.loading(export.manifest());
        ShadowLoader.Loaded loaded = tx.execute(s -> {
            ShadowLoader.Loaded l = loader.load(a.stream, export.manifestKey(), export.manifest(),
                    rows -> rebuilds.loadedRows(a.id, rows), g -> a.generation = g, a.progress);
            probe.reached(RebuildPhase.LOADING);
            leases.requireHeld(a.fence);
            return l;
        });
        a.generation = loaded.generationId();
        rebuilds.loaded(a.id, a.generation, loaded.rows(), export.manifest().cursor());
        metrics.loaded(a.stream, loaded.rows(), System.nanoTime() - loadStart);
        Map<String, Long> loadSteps = new LinkedHashMap<>();
        loaded.stepMillis().forEach((step, ms) -> loadSteps.put("load." + step, ms));
        rebuilds.steps(a.id, loadSteps);
        // the load made no resolver call: a renewal the keeper could not make restarts (410) or fails the attempt
        a.keeper.renewNow();
    }
}
