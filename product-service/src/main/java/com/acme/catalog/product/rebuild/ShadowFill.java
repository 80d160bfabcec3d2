package com.acme.catalog.product.rebuild;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportTable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fills a loading generation's plain tables on two connections at once, each step its own committed transaction
 * (the schedule of {@link ShadowLoader}'s load before its attach). A: items (copy, statistics), the revision
 * history (copy), the releases' positions from it, one half of the public view, the history's indexes and
 * statistics, then the public rows of items released at an older revision (they read the history by key). B: the
 * small tables (mappings, policies, releases, release items, the empty inbox and held events, their indexes), then
 * the other half of the public view and the item index, and once A's public rows are in, the public view's indexes.
 * Each waits for what it reads; a failure on one fails the other's next wait.
 */
@Component
class ShadowFill {

    private final ShadowTables tables;
    private final PublicViewRows views;
    private final ExportCopy copier;
    private final JdbcClient jdbc;
    private final TransactionTemplate newTx;
    private final String maintenanceWorkMem;

    ShadowFill(ShadowTables tables, PublicViewRows views, ExportCopy copier, JdbcClient jdbc,
            PlatformTransactionManager tm, RebuildProperties properties) {
        this.tables = tables;
        this.views = views;
        this.copier = copier;
        this.jdbc = jdbc;
        this.newTx = new TransactionTemplate(tm);
        this.newTx.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.maintenanceWorkMem = properties.maintenanceWorkMem();
    }

    /**
     * Fills generation {@code g} from the export; {@code steps} gets the durations {@link ShadowLoader.Loaded}
     * names (all but {@code concurrent} and {@code attach}).
     *
     * @return the rows loaded from the export's objects
     */
    long fill(long g, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded, Map<String, Long> steps,
            CopyProgress progress) {
        return new Run(g, manifestKey, manifest, rowsLoaded, steps, progress).run();
    }

    /** One fill: its two connections' work and what each waits for. */
    private final class Run {
        final long g;
        final String manifestKey;
        final ExportManifest manifest;
        final LongConsumer rowsLoaded;
        final Map<String, Long> steps;
        final CopyProgress progress;
        final AtomicLong rows = new AtomicLong();
        final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        final CompletableFuture<Void> itemsCopied = new CompletableFuture<>();
        final CompletableFuture<Void> historyCopied = new CompletableFuture<>();
        final CompletableFuture<Void> smallCopied = new CompletableFuture<>();
        final CompletableFuture<Void> positionsSet = new CompletableFuture<>();
        final CompletableFuture<Void> viewRestWritten = new CompletableFuture<>();
        final long startedAt = System.nanoTime();
        final byte[] tail;
        final byte[] historyTail;
        /** The current revision of each release as the history streams by, with where it was made. */
        final ReleasePositions releasePositions = new ReleasePositions(jdbc);
        volatile long copiedAt;

        Run(long g, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded, Map<String, Long> steps,
                CopyProgress progress) {
            this.progress = progress;
            this.g = g;
            this.manifestKey = manifestKey;
            this.manifest = manifest;
            this.rowsLoaded = rowsLoaded;
            this.steps = steps;
            this.tail = ExportCopy.stateTail(g, manifest);
            this.historyTail = ExportCopy.historyTail(g);
        }

        long run() {
            ExecutorService pool = Executors.newFixedThreadPool(2, DaemonThreads.named("shadow-load-g" + g));
            try {
                CompletableFuture<Void> a = CompletableFuture.runAsync(() -> chain("connectionA", this::itemsChain),
                        pool);
                CompletableFuture<Void> b = CompletableFuture.runAsync(() -> chain("connectionB",
                        this::smallTablesChain), pool);
                try {
                    CompletableFuture.allOf(a, b).join();
                } catch (CompletionException e) {
                    Throwable cause = firstFailure.get() != null ? firstFailure.get() : e.getCause();
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    throw new ShadowLoader.LoadFailedException("loading export " + manifest.exportId() + ": "
                            + cause, cause);
                }
                return rows.get();
            } finally {
                pool.shutdownNow();
            }
        }

        /** Runs one connection's work; {@code name}: the step its wall time is recorded as. */
        private void chain(String name, Runnable work) {
            try {
                work.run();
                steps.put(name, (System.nanoTime() - startedAt) / 1_000_000);
            } catch (RuntimeException | Error e) {
                firstFailure.compareAndSet(null, e);
                for (CompletableFuture<Void> f : List.of(itemsCopied, historyCopied, smallCopied, positionsSet,
                        viewRestWritten)) {
                    f.completeExceptionally(e);
                }
                throw e;
            }
        }

        private void itemsChain() {
            inTx(() -> {
                tables.createTable(g, "item");
                loaded(copier.copy(ExportTable.items, g, manifestKey, manifest, tail, (record, length) -> { },
                        progress));
                tables.analyze(g, "item");
            });
            rowsLoaded.accept(rows.get());
            itemsCopied.complete(null);
            long h0 = System.nanoTime();
            inTx(() -> {
                tables.createTable(g, "aggregate_revision");
                loaded(copier.copy(ExportTable.revisions, g, manifestKey, manifest, historyTail, releasePositions,
                        progress));
            });
            steps.put("history", (System.nanoTime() - h0) / 1_000_000);
            rowsLoaded.accept(rows.get());
            historyCopied.complete(null);
            copied();
            smallCopied.join();
            long d0 = System.nanoTime();
            inTx(() -> releasePositions.apply(g, manifest.exportId()));
            steps.put("derive", (System.nanoTime() - d0) / 1_000_000);
            positionsSet.complete(null);
            inTx(() -> views.writeCurrentRevisionHalf(g, 0));
            indexes("aggregate_revision");
            // the catch-up's statements look revisions up by key: give the planner the table's statistics
            inTx(() -> tables.analyze(g, "aggregate_revision"));
            inTx(() -> views.writeOlderRevisions(g));
            viewRestWritten.complete(null);
        }

        private void smallTablesChain() {
            inTx(() -> {
                for (ExportTable table : List.of(ExportTable.mappings, ExportTable.policies, ExportTable.releases)) {
                    tables.createTable(g, ExportCopy.partitionOf(table));
                    loaded(copier.copy(table, g, manifestKey, manifest, tail, (record, length) -> { }, progress));
                }
                for (String table : List.of("release_item", "public_item", "inbox", "held_event")) {
                    tables.createTable(g, table);
                }
                views.deriveReleaseItems(g);
                tables.analyze(g, "release");
                tables.analyze(g, "release_item");
            });
            rowsLoaded.accept(rows.get());
            smallCopied.complete(null);
            indexes("mapping", "policy", "release_item", "inbox", "held_event");
            positionsSet.join();
            indexes("release");
            copied();
            inTx(() -> views.writeCurrentRevisionHalf(g, 1));
            indexes("item");
            viewRestWritten.join();
            steps.put("publicView", (System.nanoTime() - copiedAt) / 1_000_000);
            indexes("public_item");
        }

        private synchronized void copied() {
            if (copiedAt == 0 && itemsCopied.isDone() && historyCopied.isDone() && smallCopied.isDone()) {
                copiedAt = System.nanoTime();
                steps.put("copy", (copiedAt - startedAt) / 1_000_000);
                progress.copied();
            }
        }

        private void loaded(long tableRows) {
            rows.addAndGet(tableRows);
        }

        private void indexes(String... names) {
            long t0 = System.nanoTime();
            inTx(() -> {
                for (String table : names) {
                    tables.buildIndexes(g, table);
                }
            });
            steps.merge("indexes", (System.nanoTime() - t0) / 1_000_000, Long::sum);
        }

        private void inTx(Runnable work) {
            newTx.executeWithoutResult(s -> {
                tables.bulkSession(maintenanceWorkMem);
                work.run();
            });
        }
    }
}
