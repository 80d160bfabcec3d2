package com.acme.catalog.product.rebuild;

import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;

import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.rebuild.RebuildView;

/**
 * The progress of one attempt, in the memory of the instance running it (docs/rebuild.md "Progress"): the load's
 * rows (copied so far, from the COPY chunks, against the manifest's row counts) and the catch-up's events (applied
 * so far, from its pages, against the resolver's head as last seen), each with its rate over the last few seconds
 * ({@link ProgressRate}). The steps report per chunk or page; the figures and estimates are computed when read.
 */
final class RebuildProgress implements CopyProgress {

    private final LongSupplier nanoTime;
    private volatile RebuildPhase phase = RebuildPhase.LEASING;
    private volatile Long expectedRows;
    private volatile ProgressRate rows;
    private volatile boolean copied;
    /** Rows per second over the whole copy, once every row is copied. */
    private volatile Double copyRate;
    private volatile long loadStartNanos;
    private volatile ProgressRate events;
    /** The catch-up's processed position and the resolver's head as last seen; guarded by this. */
    private long position;
    private Long head;

    RebuildProgress(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    void phase(RebuildPhase phase) {
        this.phase = phase;
    }

    RebuildPhase phase() {
        return phase;
    }

    /** The load starts: it copies the rows of every object of {@code manifest}. */
    void loading(ExportManifest manifest) {
        loading(manifest.objects().stream().mapToLong(ExportManifest.ManifestObject::rows).sum());
    }

    void loading(long expected) {
        expectedRows = expected;
        copied = false;
        copyRate = null;
        loadStartNanos = nanoTime.getAsLong();
        rows = new ProgressRate(nanoTime);
    }

    /** {@code n} more rows were copied (one COPY chunk). */
    @Override
    public void rowsCopied(long n) {
        ProgressRate r = rows;
        if (r != null) {
            r.add(n);
        }
    }

    /** Every row is copied: what the load does after (indexes, public view, attach) is not counted. */
    @Override
    public void copied() {
        ProgressRate r = rows;
        if (r != null && !copied) {
            copyRate = ProgressRate.rate(0, loadStartNanos, r.count(), nanoTime.getAsLong());
            copied = true;
        }
    }

    /** The catch-up starts after {@code from}, the export's position W. */
    synchronized void catchingUp(long from) {
        position = from;
        head = null;
        events = new ProgressRate(nanoTime);
    }

    /** A page of {@code applied} events was processed through {@code through}; the resolver's head was {@code h}. */
    void page(long through, long h, long applied) {
        synchronized (this) {
            position = Math.max(position, through);
            head = h;
        }
        ProgressRate e = events;
        if (e != null) {
            e.add(applied);
        }
    }

    /** @return the load's count; null before the load started */
    RebuildView.Count load() {
        ProgressRate r = rows;
        if (r == null) {
            return null;
        }
        long done = r.count();
        boolean running = phase == RebuildPhase.LOADING && !copied;
        // once copied: the copy's average rate, and nothing left to copy
        Double rate = running ? round(r.perSecond()) : round(copyRate);
        Duration eta = running ? ProgressRate.eta(done, expectedRows, rate) : copied ? Duration.ZERO : null;
        return new RebuildView.Count("rows", done, expectedRows, rate, iso(eta));
    }

    /** @return the catch-up's count: done, and total as done plus the events up to the head last seen */
    RebuildView.Count catchUp() {
        ProgressRate e = events;
        if (e == null) {
            return null;
        }
        long done = e.count();
        Long total;
        synchronized (this) {
            total = head == null ? null : done + Math.max(0, head - position);
        }
        boolean running = phase == RebuildPhase.CATCHING_UP;
        Double rate = running ? round(e.perSecond()) : null;
        boolean finished = phase == RebuildPhase.CUTTING_OVER || phase == RebuildPhase.DONE;
        Duration eta = running ? ProgressRate.eta(done, total, rate) : finished ? Duration.ZERO : null;
        return new RebuildView.Count("events", done, total, rate, iso(eta));
    }

    synchronized Long head() {
        return head;
    }

    /**
     * @param lastCutover how long the last cutover on this instance took; null before one
     * @return the progress as {@code GET /v1/rebuilds/{id}} shows it
     */
    RebuildView.Progress view(Duration lastCutover) {
        RebuildPhase p = phase;
        RebuildView.Count load = load();
        RebuildView.Count catchUp = catchUp();
        RebuildView.Count current = p == RebuildPhase.LOADING ? load : p == RebuildPhase.CATCHING_UP ? catchUp : null;
        Duration eta = eta(p, catchUp, lastCutover);
        return new RebuildView.Progress(p.name(), current == null ? null : current.unit(),
                current == null ? null : current.done(), current == null ? null : current.total(),
                current == null ? null : current.ratePerSecond(),
                current == null || p == RebuildPhase.LOADING && copied ? null : current.eta(), iso(eta), load, catchUp,
                head(), Instant.now(), true);
    }

    /**
     * The whole rebuild's time left: in CATCHING_UP the catch-up's estimate plus the last cutover this instance ran
     * (none before one); zero once DONE; otherwise unknown: before the catch-up has seen the resolver's head nobody
     * knows how many events the tail holds.
     */
    static Duration eta(RebuildPhase p, RebuildView.Count catchUp, Duration lastCutover) {
        if (p == RebuildPhase.DONE) {
            return Duration.ZERO;
        }
        if (p != RebuildPhase.CATCHING_UP || catchUp == null || catchUp.eta() == null) {
            return null;
        }
        Duration d = Duration.parse(catchUp.eta());
        return lastCutover == null ? d : d.plus(lastCutover);
    }

    /** @return whole-rebuild seconds left, NaN when unknown (the gauge) */
    double etaSeconds(Duration lastCutover) {
        Duration d = eta(phase, catchUp(), lastCutover);
        return d == null ? Double.NaN : d.toMillis() / 1000.0;
    }

    /** @return rows per second while the load copies, else 0 */
    double rowsPerSecond() {
        ProgressRate r = rows;
        Double rate = phase == RebuildPhase.LOADING && !copied && r != null ? r.perSecond() : null;
        return rate == null ? 0 : rate;
    }

    /** @return events per second while the catch-up runs, else 0 */
    double eventsPerSecond() {
        ProgressRate e = events;
        Double rate = phase == RebuildPhase.CATCHING_UP && e != null ? e.perSecond() : null;
        return rate == null ? 0 : rate;
    }

    /**
     * @return the progress an instance that does not run the rebuild can tell from its row: the counts it persists
     *         (rows per loaded table, events per applied page), no rate, no estimate but a DONE rebuild's zero
     */
    static RebuildView.Progress fromRow(Rebuild r) {
        boolean done = r.phase() == RebuildPhase.DONE;
        String zero = done ? Duration.ZERO.toString() : null;
        RebuildView.Count load = new RebuildView.Count("rows", r.loadedRows(), done ? r.loadedRows() : null, null,
                zero);
        RebuildView.Count catchUp = new RebuildView.Count("events", r.appliedEvents(),
                done ? r.appliedEvents() : null, null, zero);
        RebuildView.Count current = r.phase() == RebuildPhase.LOADING ? load
                : r.phase() == RebuildPhase.CATCHING_UP ? catchUp : null;
        return new RebuildView.Progress(r.phase().name(), current == null ? null : current.unit(),
                current == null ? null : current.done(), null, null, null, zero, load, catchUp, done ? r.target()
                        : null, Instant.now(), false);
    }

    private static Double round(Double rate) {
        return rate == null ? null : Math.round(rate * 10) / 10.0;
    }

    private static String iso(Duration d) {
        return d == null ? null : d.toString();
    }
}
