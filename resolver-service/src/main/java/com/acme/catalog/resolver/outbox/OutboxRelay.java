package com.acme.catalog.resolver.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.concurrent.DaemonThreads;
import com.acme.catalog.resolver.outbox.DeliveryFraming.Frame;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.Delivered;
import com.acme.catalog.resolver.outbox.DeliveryOutcome.Failure;
import com.acme.catalog.resolver.outbox.RelayRepository.Due;
import com.acme.catalog.resolver.outbox.RelayRepository.Event;
import com.acme.catalog.resolver.outbox.RelayRepository.StreamEpoch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Dispatches each push consumer's events, in position order and bounded batches, to its delivery URL. Woken by
 * commit notifications ({@link CommitListener}), with a poll as safety net. Per consumer: a delivery cursor separate
 * from durable progress, a claim so one instance delivers at a time, and exponential backoff with jitter on failure,
 * so a slow or down consumer never stalls the others. A worker that holds a consumer's claim goes straight on to the
 * next batch while there is one (yielding its thread when other consumers wait). Each batch is framed by
 * {@link DeliveryFraming} and sent by {@link DeliveryClient}; the {@link PublishTicker} marks events published, off
 * the delivery path, once every push consumer of the stream has them.
 */
@Component
class OutboxRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelayRepository repo;
    private final RelayGate gate;
    private final RelayProperties props;
    private final DeliveryFraming framing;
    private final DeliveryClient client;
    private final PublishTicker publisher;
    private final CommitListener listener;
    private final String instance = "relay-" + UUID.randomUUID();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Object signal = new Object();
    /** Counts wake-ups; a worker that saw it change while it finished hands the wake on to the dispatcher. */
    private final AtomicLong wakes = new AtomicLong();
    /**
     * Stream epochs a commit notification named (or a worker must look at again) since the dispatcher's last pass:
     * the next pass looks at their consumers only, unless {@link #scanAll} asks for every stream's.
     */
    private final Set<StreamEpoch> dueStreams = ConcurrentHashMap.newKeySet();
    /** Set by a poll, a retry, a start or a notification without a stream: the next pass looks at every stream. */
    private final AtomicBoolean scanAll = new AtomicBoolean(true);
    private final Counter failedDeliveries;
    private final Counter oversizedEvents;
    private final Counter fullScans;
    private final Counter notifiedScans;
    private volatile boolean running;
    private boolean woken;
    /** Dispatcher thread only: when the last pass over every stream started. */
    private long lastFullScanNanos = System.nanoTime();
    private ThreadPoolExecutor workers;
    private ScheduledExecutorService retryTimer;
    private Thread dispatcher;

    OutboxRelay(RelayRepository repo, RelayProperties props, RelayGate gate, DeliveryFraming framing,
            DeliveryClient client, PublishTicker publisher, CommitListener listener, MeterRegistry registry) {
        this.repo = repo;
        this.gate = gate;
        this.props = props;
        this.framing = framing;
        this.client = client;
        this.publisher = publisher;
        this.listener = listener;
        this.failedDeliveries = Counter.builder("resolver.relay.failed.deliveries")
                .description("deliveries that failed and were scheduled for retry").register(registry);
        this.oversizedEvents = Counter.builder("resolver.relay.oversized.events")
                .description("events whose wire is over the limit every consumer accepts (written before the limits;"
                        + " sent alone, a consumer may refuse them)").register(registry);
        this.fullScans = Counter.builder("resolver.relay.scans").tag("kind", "all")
                .description("dispatcher passes that looked for due consumers of every stream (poll, retry, start)")
                .register(registry);
        this.notifiedScans = Counter.builder("resolver.relay.scans").tag("kind", "notified")
                .description("dispatcher passes that looked only at the streams commit notifications named")
                .register(registry);
    }

    @Override
    public void start() {
        if (!props.enabled()) {
            log.info("outbox relay disabled (relay.enabled=false)");
            return;
        }
        running = true;
        retryTimer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("relay-retry-timer"));
        publisher.start();
        int n = Math.max(1, props.workers());
        workers = new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named("relay-delivery"));
        listener.start(this::committed);
        dispatcher = DaemonThreads.newThread(this::dispatchLoop, "relay-dispatcher");
        dispatcher.start();
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        listener.stop();
        wake();
        retryTimer.shutdownNow();
        publisher.stop();
        workers.shutdown();
        try {
            workers.awaitTermination(props.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            repo.releaseAll(instance);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("could not release this instance's delivery claims; they expire after {}: {}", props.claim(),
                    e.toString());
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Commit notifications ({@code tenant/catalog/epoch} payloads): wake the dispatcher and the publisher. */
    private void committed(Set<String> payloads) {
        boolean named = !payloads.isEmpty(); // an empty set: the listener (re)connected, anything may have committed
        List<StreamEpoch> streams = new ArrayList<>();
        for (String payload : payloads) {
            Optional<StreamEpoch> s = parse(payload);
            if (s.isPresent()) {
                streams.add(s.get());
            } else {
                named = false;
            }
        }
        publisher.committed(streams);
        dueStreams.addAll(streams);
        if (!named) {
            scanAll.set(true);
        }
        signal();
    }

    /** @return the stream epoch a payload names; empty for {@link RelayWakeUp#EVERY_STREAM} or one not ours */
    private static Optional<StreamEpoch> parse(String payload) {
        String[] parts = payload == null ? new String[0] : payload.split("/");
        try {
            return parts.length == 3
                    ? Optional.of(new StreamEpoch(new StreamId(parts[0], parts[1]), Long.parseLong(parts[2])))
                    : Optional.empty();
        } catch (RuntimeException notOurs) {
            return Optional.empty();
        }
    }

    /** Wakes the dispatcher for a pass over every stream's consumers. */
    void wake() {
        scanAll.set(true);
        signal();
    }

    private void signal() {
        wakes.incrementAndGet();
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void dispatchLoop() {
        while (running) {
            try {
                cycle();
            } catch (RuntimeException e) {
                log.warn("relay cycle failed: {}", e.toString());
            }
            synchronized (signal) {
                if (!woken && running) {
                    try {
                        signal.wait(props.pollInterval().toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    if (!woken) {
                        scanAll.set(true); // the poll: the safety net for whatever no notification named
                    }
                }
                woken = false;
            }
        }
    }

    /**
     * One pass: hand every due consumer (not already being served here) to a delivery worker. It looks at the streams
     * notifications named since the last pass, or at every stream when {@link #scanAll} is set, so a write costs a
     * look at its own stream whatever the number of streams.
     */
    void cycle() {
        List<Due> dueNow;
        long now = System.nanoTime();
        // at least one pass over every stream a poll interval, also while notifications keep the dispatcher busy (a
        // consumer registered on a quiet stream is found by no notification)
        if (scanAll.getAndSet(false) || now - lastFullScanNanos >= props.pollInterval().toNanos()) {
            lastFullScanNanos = now;
            dueStreams.clear(); // the pass below sees them: it reads after this
            dueNow = repo.due(instance, 1000);
            fullScans.increment();
        } else {
            List<StreamEpoch> named = new ArrayList<>(dueStreams);
            if (named.isEmpty()) {
                return;
            }
            dueStreams.removeAll(named);
            dueNow = repo.dueFor(named, instance, 1000);
            notifiedScans.increment();
        }
        for (Due due : dueNow) {
            String key = due.consumerId() + "|" + due.stream() + "|" + due.epoch();
            if (inFlight.add(key)) {
                submit(due, key);
            }
        }
    }

    private void submit(Due due, String key) {
        try {
            workers.execute(() -> serve(due, key));
        } catch (RejectedExecutionException e) {
            inFlight.remove(key); // stopping
        }
    }

    /** Delivers to one consumer until it is caught up, fails, loses its claim or must yield its thread. */
    private void serve(Due due, String key) {
        Progress p = new Progress(wakes.get());
        Optional<Due> next = Optional.empty();
        try {
            next = drain(due, p);
        } catch (RuntimeException e) {
            log.warn("delivery to consumer {} of {} epoch {} failed: {}", due.consumerId(), due.stream(), due.epoch(),
                    e.toString());
        }
        if (next.isPresent() && running) {
            submit(next.get(), key); // keeps the key and the claim: back of the queue, behind the consumers waiting
            return;
        }
        inFlight.remove(key);
        if (wakes.get() != p.seenWakes) {
            // a commit of this stream may have been skipped by the dispatcher while the key was held
            dueStreams.add(new StreamEpoch(due.stream(), due.epoch()));
            signal();
        }
    }

    /** The wake count read before the last look at the outbox. */
    private static final class Progress {
        long seenWakes;

        Progress(long seenWakes) {
            this.seenWakes = seenWakes;
        }
    }

    /** @return the consumer to serve again later (claim held) when other consumers wait for a thread */
    private Optional<Due> drain(Due due, Progress p) {
        if (!gate.mayRelay(due.stream(), due.epoch(), due.head())) {
            // fenced, rolled back or the control store is out of reach: the next cycle asks again
            return Optional.empty();
        }
        long claimSeconds = Math.max(1, props.claim().toSeconds());
        Optional<List<Event>> claimed = repo.claimAndRead(due, instance, claimSeconds, due.delivered(),
                props.batchEvents());
        if (claimed.isEmpty()) {
            return Optional.empty(); // another instance holds it
        }
        List<Event> events = claimed.get();
        long after = due.delivered();
        while (true) {
            if (events.isEmpty()) {
                repo.release(due, instance);
                return Optional.empty();
            }
            if (!(deliver(due, after, events) instanceof Delivered delivered)) {
                return Optional.empty(); // failed: recorded, claim released, retry scheduled
            }
            long through = delivered.through();
            publisher.delivered(new StreamEpoch(due.stream(), due.epoch()));
            p.seenWakes = wakes.get();
            Optional<Boolean> more = repo.delivered(due, through, instance, claimSeconds);
            if (more.isEmpty() || !more.get() || !running) {
                return Optional.empty(); // claim lost, or caught up and released (or stopping: released at stop)
            }
            after = through;
            if (!workers.getQueue().isEmpty()) {
                return Optional.of(
                        new Due(due.consumerId(), due.stream(), due.epoch(), due.deliveryUrl(), after, due.head()));
            }
            p.seenWakes = wakes.get();
            events = repo.events(due.stream(), due.epoch(), after, props.batchEvents());
        }
    }

    /** Sends the first batch of {@code events} that fits a delivery; a failure is recorded and its retry scheduled. */
    private DeliveryOutcome deliver(Due due, long after, List<Event> events) {
        Frame frame = framing.frame(after, events);
        frame.oversized().ifPresent(o -> {
            oversizedEvents.increment();
            log.error("event {} of {} epoch {} is {} bytes with its digest, over the delivery limit of {} bytes "
                    + "(written before the limits of docs/writes.md): sent alone, consumer {} may refuse it",
                    o.position(), due.stream(), due.epoch(), o.bytes(), JsonLimits.MAX_DELIVERY_BYTES,
                    due.consumerId());
        });
        DeliveryOutcome outcome = client.send(due.deliveryUrl(), frame);
        if (outcome instanceof Failure failure) {
            retryLater(due, frame, failure);
        }
        return outcome;
    }

    /** Records the failure on the consumer's delivery row (releasing its claim); a retry comes after the backoff. */
    private void retryLater(Due due, Frame frame, Failure failure) {
        int failures = repo.failures(due) + 1;
        double backoff = backoffSeconds(failures);
        failedDeliveries.increment();
        log.warn("delivery of {} events ({}..{}) of {} epoch {} to consumer {} failed ({} in a row), retry in {} s: {}",
                frame.count(), frame.after() + 1, frame.through(), due.stream(), due.epoch(), due.consumerId(),
                failures, String.format("%.2f", backoff), failure.reason());
        repo.failed(due, DeliveryOutcome.abbreviate(String.valueOf(failure.reason())), backoff, instance);
        try {
            retryTimer.schedule(this::wake, (long) (backoff * 1000) + 5, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // the next start polls anyway
        }
    }

    /** Exponential from the initial delay, capped, with full jitter in its upper half (see
     * {@link RelayProperties#backoff}). */
    double backoffSeconds(int failures) {
        return props.backoff().jitteredPause(failures, ThreadLocalRandom.current()).toNanos() / 1e9;
    }
}
