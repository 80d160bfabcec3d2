package com.acme.catalog.product.progress;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.platform.retry.BackoffPolicy;
import com.acme.catalog.product.resolver.ResolverClient;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Reports each stream's durable progress to the resolver, off the request path. Guarantees: only what callers
 * {@link #offer} is reported, and callers offer only positions whose transaction has committed; per stream the
 * reported (epoch, position) never goes down (a lower offer is dropped, a higher epoch replaces a lower one);
 * offers made while a report is pending coalesce into the latest; per stream, reports are at least
 * {@code product.progress.min-interval} apart (offers in between coalesce into one report at the end of the
 * interval, so a busy stream costs the resolver a few requests a second, not one per delivery); a failed report is
 * retried with exponential backoff and jitter, capped, until it succeeds or a later offer supersedes it. A report lost to a crash only
 * makes the resolver retain more; the serving cursors are offered again at start and periodically.
 * {@code product_progress_reports_total} counts reports by {@code outcome} ({@code acknowledged}, {@code failed}),
 * per instance; what the resolver holds per stream is its {@code resolver_consumer_lag_events}.
 */
@Component
public class ProgressReporter implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ProgressReporter.class);

    /** A position within an epoch; a higher epoch is later than any position of a lower one. */
    public record Progress(long epoch, long position) {
        boolean isAfter(Progress other) {
            return epoch > other.epoch || (epoch == other.epoch && position > other.position);
        }

        static Progress later(Progress a, Progress b) {
            return b.isAfter(a) ? b : a;
        }
    }

    private record Retry(int attempts, long notBeforeNanos) {
    }

    private final ResolverClient client;
    private final Counter acknowledged;
    private final Counter failed;
    private final BackoffPolicy backoff;
    private final long minIntervalNanos;
    private final ScheduledExecutorService worker =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("progress-reporter"));
    private final Map<StreamId, Progress> wanted = new ConcurrentHashMap<>();
    private final Map<StreamId, Progress> reported = new ConcurrentHashMap<>();
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    /** Worker thread only. */
    private final Map<StreamId, Retry> retries = new HashMap<>();
    /** Worker thread only: when each stream's last successful report was sent. */
    private final Map<StreamId, Long> lastSent = new HashMap<>();
    private long delayedDrainAt = Long.MAX_VALUE;

    ProgressReporter(ResolverClient client, MeterRegistry registry, ProgressProperties properties) {
        this.minIntervalNanos = properties.minInterval().toNanos();
        this.client = client;
        this.acknowledged = reports(registry, "acknowledged");
        this.failed = reports(registry, "failed");
        this.backoff = properties.backoff();
    }

    /** Asks for {@code position} of {@code epoch} to be reported; call only after the commit that made it durable. */
    public void offer(StreamId stream, long epoch, long position) {
        wanted.merge(stream, new Progress(epoch, position), Progress::later);
        if (drainQueued.compareAndSet(false, true)) {
            try {
                worker.execute(this::drain);
            } catch (RejectedExecutionException shuttingDown) {
                drainQueued.set(false);
            }
        }
    }

    /**
     * Makes {@code position} of {@code epoch} the stream's progress to report from now on, even if it is lower than
     * what was offered before: after a cutover, what an earlier generation offered and the resolver has not
     * acknowledged (a diverged generation may have offered a position the resolver never committed) must not be
     * reported for the new one. Positions the resolver already acknowledged stay acknowledged.
     */
    public void restart(StreamId stream, long epoch, long position) {
        try {
            worker.execute(() -> {
                wanted.put(stream, new Progress(epoch, position));
                retries.remove(stream);
                drain();
            });
        } catch (RejectedExecutionException shuttingDown) {
            // the next start offers the serving cursors again
        }
    }

    /** @return the latest progress the resolver acknowledged for the stream, if any since this instance started */
    public Optional<Progress> reported(StreamId stream) {
        return Optional.ofNullable(reported.get(stream));
    }

    private void drain() {
        drainQueued.set(false);
        long nextDue = Long.MAX_VALUE;
        for (Map.Entry<StreamId, Progress> e : wanted.entrySet()) {
            StreamId stream = e.getKey();
            Progress want = e.getValue();
            Progress done = reported.get(stream);
            if (done != null && !want.isAfter(done)) {
                continue;
            }
            Retry retry = retries.get(stream);
            if (retry != null && retry.notBeforeNanos() - System.nanoTime() > 0) {
                nextDue = Math.min(nextDue, retry.notBeforeNanos());
                continue;
            }
            Long sent = lastSent.get(stream);
            if (retry == null && sent != null && sent + minIntervalNanos - System.nanoTime() > 0) {
                nextDue = Math.min(nextDue, sent + minIntervalNanos);
                continue;
            }
            if (!send(stream, want, retry)) {
                nextDue = Math.min(nextDue, retries.get(stream).notBeforeNanos());
            }
        }
        if (nextDue != Long.MAX_VALUE) {
            scheduleDrainAt(nextDue);
        }
    }

    private boolean send(StreamId stream, Progress want, Retry retry) {
        try {
            long sentAt = System.nanoTime();
            client.reportProgress(stream, want.epoch(), want.position());
            lastSent.put(stream, sentAt);
            reported.merge(stream, want, Progress::later);
            acknowledged.increment();
            retries.remove(stream);
            return true;
        } catch (RuntimeException ex) {
            failed.increment();
            int attempts = retry == null ? 1 : retry.attempts() + 1;
            // jittered, so that the streams of a resolver that was down do not all retry at the same moment
            Duration pause = backoff.jitteredPause(attempts, ThreadLocalRandom.current());
            retries.put(stream, new Retry(attempts, System.nanoTime() + pause.toNanos()));
            if (attempts == 1 || attempts % 10 == 0) {
                log.warn("progress report for {} epoch {} position {} failed (attempt {}), retrying in {} ms: {}",
                        stream, want.epoch(), want.position(), attempts, pause.toMillis(), ex.toString());
            }
            return false;
        }
    }

    private void scheduleDrainAt(long dueNanos) {
        if (dueNanos >= delayedDrainAt) {
            return;
        }
        delayedDrainAt = dueNanos;
        try {
            worker.schedule(() -> {
                delayedDrainAt = Long.MAX_VALUE;
                drain();
            }, Math.max(0, dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            delayedDrainAt = Long.MAX_VALUE;
        }
    }

    private static Counter reports(MeterRegistry registry, String outcome) {
        return Counter.builder("product.progress.reports").description("progress reports sent to the resolver")
                .tag("outcome", outcome).register(registry);
    }

    @Override
    public void destroy() {
        worker.shutdownNow();
    }
}
