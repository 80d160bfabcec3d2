package com.acme.catalog.product.rebuild;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.ExportManifest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Loads an export into a new BUILDING generation (docs/rebuild.md). The generation's tables are created plain,
 * without secondary indexes and not attached, and filled on two connections at once, each step its own committed
 * transaction ({@link ShadowFill}): every object is streamed through the verifying reader (size, SHA-256, row count,
 * header, profile checksum) and {@code COPY … FROM STDIN (FREEZE)} straight into its table (created in the same
 * transaction) with the export's epoch and position W ({@link ExportCopy}); each table's checksum must equal the
 * manifest's {@code stateChecksum}. Then the derived rows (each aggregate's current revision, the items each release
 * names) and the public view (in two halves, one per connection: its search documents are the CPU cost) are
 * computed set-wise ({@link PublicViewRows}), and every index is built once over the loaded rows with
 * {@code CREATE INDEX}, which lets the other connection keep reading the table. Only the last transaction, the
 * caller's, turns the unique indexes into the parents' constraints, attaches the tables as the generation's
 * partitions (the bound CHECK spares ATTACH its validation scan, the parents adopt the indexes) and sets the
 * generation's cursor to W with the manifest's chain digest ({@link ShadowTables#attach}). Readers follow the
 * serving pointer, so they never see the shadow before the cutover; until the attach nobody reads the plain tables.
 *
 * <p>A failure inside {@link #load} drops the tables and the generation row. A generation whose load or attach
 * never committed because the process stopped stays BUILDING with its plain tables; {@link GenerationRetirer}
 * drops them (the next holder of the stream's worker lease retires every BUILDING generation no rebuild runs).
 */
@Component
class ShadowLoader {

    private static final Logger log = LoggerFactory.getLogger(ShadowLoader.class);

    /**
     * What a load produced; {@code stepMillis}: {@code copy} (wall time until every object is read, verified and
     * COPY'd), {@code publicView} (wall time from then until both halves of the public view are written),
     * {@code derive} (the revision copy, on one connection while the other writes the public view), {@code indexes}
     * (every index build, summed over both connections), {@code attach} (constraints, attach, cursor),
     * {@code concurrent} (wall time of everything before the attach) and {@code connectionA}/{@code connectionB}
     * (wall time until each connection's share was done). The steps overlap: their sum exceeds the
     * load's wall time.
     */
    record Loaded(long generationId, long rows, Map<String, Long> stepMillis) {
    }

    private final TransactionTemplate tx;
    private final TransactionTemplate newTx;
    private final ShadowTables tables;
    private final ShadowFill fill;

    ShadowLoader(PlatformTransactionManager tm, ShadowTables tables, ShadowFill fill) {
        this.tx = new TransactionTemplate(tm);
        this.newTx = new TransactionTemplate(tm);
        this.newTx.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.tables = tables;
        this.fill = fill;
    }

    /** {@link #load(StreamId, String, ExportManifest, LongConsumer, LongConsumer)} without the creation hook. */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded) {
        return load(stream, manifestKey, manifest, rowsLoaded, g -> { });
    }

    /**
     * Creates and commits a BUILDING generation, loads the export into its plain tables (committed step by step),
     * then attaches them and sets the cursor in the caller's transaction (a new one without it): the generation
     * joins its parents when that transaction commits.
     *
     * @param rowsLoaded told the running row count after each table
     * @param created    told the generation's id as soon as its row is committed, before anything is loaded: a
     *                   caller whose transaction rolls back after this method returned retires it
     * @throws CorruptExportException when an object or the state checksum is not what the manifest promises
     *                                (wrapped in {@link LoadFailedException}); then nothing is left behind
     */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded,
            LongConsumer created) {
        return load(stream, manifestKey, manifest, rowsLoaded, created, CopyProgress.NONE);
    }

    /**
     * {@link #load(StreamId, String, ExportManifest, LongConsumer, LongConsumer)}, telling {@code progress} the rows
     * of each COPY chunk and when every object is copied.
     */
    Loaded load(StreamId stream, String manifestKey, ExportManifest manifest, LongConsumer rowsLoaded,
            LongConsumer created, CopyProgress progress) {
        long t0 = System.nanoTime();
        long g = newTx.execute(s -> tables.insertGeneration(stream, manifest.epoch()));
        created.accept(g);
        Map<String, Long> steps = new ConcurrentHashMap<>();
        long rows;
        try {
            rows = fill.fill(g, manifestKey, manifest, rowsLoaded, steps, progress);
        } catch (RuntimeException e) {
            discard(g);
            throw e;
        }
        long t1 = System.nanoTime();
        steps.put("concurrent", (t1 - t0) / 1_000_000);
        return tx.execute(status -> {
            tables.attach(g, manifest.cursor(), manifest.chainDigest());
            steps.put("attach", (System.nanoTime() - t1) / 1_000_000);
            return new Loaded(g, rows, new LinkedHashMap<>(new TreeMap<>(steps)));
        });
    }

    /** Drops what a failed load created: its tables and its generation row. */
    private void discard(long g) {
        try {
            newTx.executeWithoutResult(s -> tables.drop(g));
        } catch (RuntimeException e) {
            // the generation stays BUILDING: the retirer drops it with the next holder of the worker lease
            log.warn("could not drop the tables of failed shadow generation {}: {}", g, e.toString());
        }
    }

    /** The export could not be loaded: it is corrupt or the database refused it. */
    static final class LoadFailedException extends RuntimeException {
        LoadFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
