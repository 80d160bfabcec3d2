package com.acme.catalog.product.rebuild;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rebuilds running in this process, each with the shadow generation its current attempt created (if any), on
 * a pool of {@code product.rebuild.workers} threads: at most that many rebuilds run at once here, the others wait
 * for a thread in their phase ({@code LEASING} for a new one).
 */
final class RunningRebuilds {

    private static final Logger log = LoggerFactory.getLogger(RunningRebuilds.class);

    /** A running rebuild: its stream and its current attempt's shadow generation (null before one is created). */
    private static final class Running {
        final StreamId stream;
        volatile Long shadow;

        Running(StreamId stream) {
            this.stream = stream;
        }
    }

    private final Map<UUID, Running> running = new ConcurrentHashMap<>();
    private final ExecutorService workers;

    RunningRebuilds(int workers) {
        this.workers = Executors.newFixedThreadPool(workers, DaemonThreads.named("rebuild"));
    }

    /**
     * Runs {@code rebuild} on a worker thread; the rebuild counts as running here from now until it returns. A
     * failure escaping it is logged and, after a growing pause (0.5 s doubling to 30 s), {@code resume} decides
     * whether to run it again (it also may fail and is retried the same way).
     */
    void submit(UUID id, StreamId stream, Runnable rebuild, BooleanSupplier resume) {
        running.put(id, new Running(stream));
        try {
            workers.submit(() -> {
                try {
                    runUntilReturned(id, stream, rebuild, resume);
                } finally {
                    running.remove(id);
                }
            });
        } catch (RuntimeException e) {
            running.remove(id);
            throw e;
        }
    }

    private static void runUntilReturned(UUID id, StreamId stream, Runnable rebuild, BooleanSupplier resume) {
        boolean again = true;
        for (int escaped = 0; again; escaped++) {
            try {
                if (escaped > 0 && !resume.getAsBoolean()) {
                    return;
                }
                rebuild.run();
                return;
            } catch (RuntimeException e) {
                long pause = Math.min(30_000L, 500L << Math.min(escaped, 6));
                log.warn("{}: rebuild {} stopped by a failure outside its attempt, resuming in {} ms: {}", stream,
                        id, pause, e.toString());
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    again = false;
                }
            }
        }
    }

    /** The running rebuild starts a new attempt: it has created no shadow generation yet. */
    void newAttempt(UUID id) {
        Running r = running.get(id);
        if (r != null) {
            r.shadow = null;
        }
    }

    /** The running rebuild's current attempt created shadow generation {@code generation}. */
    void shadowCreated(UUID id, long generation) {
        Running r = running.get(id);
        if (r != null) {
            r.shadow = generation;
        }
    }

    /** @return the shadow generation the running rebuild's current attempt created, if any */
    Optional<Long> shadowOf(UUID id) {
        Running r = running.get(id);
        return r == null ? Optional.empty() : Optional.ofNullable(r.shadow);
    }

    boolean runs(UUID id) {
        return running.containsKey(id);
    }

    boolean runsOf(StreamId stream) {
        return running.values().stream().anyMatch(r -> r.stream.equals(stream));
    }

    /** @return the shadow generations the stream's running attempts load or have loaded */
    Set<Long> generationsOf(StreamId stream) {
        return running.values().stream().filter(r -> r.stream.equals(stream)).map(r -> r.shadow)
                .filter(g -> g != null).collect(Collectors.toSet());
    }

    /** Interrupts the running rebuilds and accepts no more. */
    void stop() {
        workers.shutdownNow();
    }
}
