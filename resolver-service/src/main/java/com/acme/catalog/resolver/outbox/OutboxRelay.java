package com.acme.catalog.resolver.outbox;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.concurrent.DaemonThreads;
import com.acme.catalog.resolver.outbox.RelayRepository.Due;
import com.acme.catalog.resolver.outbox.RelayRepository.Event;
import com.acme.catalog.resolver.outbox.RelayRepository.Head;
import com.acme.catalog.resolver.outbox.RelayRepository.Published;
import com.acme.catalog.resolver.outbox.RelayRepository.StreamEpoch;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Pushes each push consumer's events, in position order and bounded batches, to its delivery URL. Woken by commit
 * notifications, with a poll as safety net. Per consumer: a delivery cursor separate from durable progress, a
 * claim so one instance delivers at a time, and exponential backoff with jitter on failure, so a slow or down
 * consumer never stalls the others. A worker that holds a consumer's claim goes straight on to the next batch
 * while there is one (yielding its thread when other consumers wait). Events are marked published, off the
 * delivery path, once every push consumer of the stream has them.
 */
@Component
class OutboxRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final byte[] BODY_OPEN = "{\"events\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BODY_CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);

    private final RelayRepository repo;
    private final RelayGate gate;
    private final RelayProperties props;
    private final DeliveryUrlAllowlist allowlist;
    private final HikariDataSource dataSource;
    private final String instance = "relay-" + UUID.randomUUID();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Object signal = new Object();
    /** Counts wake-ups; a worker that saw it change while it finished hands the wake on to the dispatcher. */
    private final AtomicLong wakes = new AtomicLong();
    private final AtomicBoolean publishWanted = new AtomicBoolean(true);
    /** Streams delivered to, or committed to, since the publisher last looked. */
    private final Set<StreamEpoch> deliveredSince = ConcurrentHashMap.newKeySet();
    private final Set<StreamEpoch> committedSince = ConcurrentHashMap.newKeySet();
    /**
     * Stream epochs a commit notification named (or a worker must look at again) since the dispatcher's last pass:
     * the next pass looks at their consumers only, unless {@link #scanAll} asks for every stream's.
     */
    private final Set<StreamEpoch> dueStreams = ConcurrentHashMap.newKeySet();
    /** Set by a poll, a retry, a start or a notification without a stream: the next pass looks at every stream. */
    private final AtomicBoolean scanAll = new AtomicBoolean(true);
    /** Publisher thread only: per stream epoch, the position through which every row is known published. */
    private final Map<StreamEpoch, Long> publishedThrough = new HashMap<>();
    private final HttpClient http;
    private final Counter deliveredEvents;
    private final Counter failedDeliveries;
    private final Counter refusedDeliveries;
    private final Counter oversizedEvents;
    private final Timer deliveryTime;
    private final Timer failedDeliveryTime;
    private final Timer deliveryLag;
    private final Counter fullScans;
    private final Counter notifiedScans;
    private volatile boolean running;
    private boolean woken;
    private volatile long lastPublishNanos;
    /** Dispatcher thread only: when the last pass over every stream started. */
    private long lastFullScanNanos = System.nanoTime();
    private ThreadPoolExecutor workers;
    private ScheduledExecutorService retryTimer;
    private ScheduledExecutorService publisher;
    private Thread dispatcher;
    private Thread listenerThread;
    private CommitListener listener;

    OutboxRelay(RelayRepository repo, RelayProperties props, HikariDataSource dataSource, MeterRegistry registry,
            RelayGate gate, DeliveryUrlAllowlist allowlist) {
        this.repo = repo;
        this.allowlist = allowlist;
        this.gate = gate;
        this.props = props;
        this.dataSource = dataSource;
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection to a plain-http consumer
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(props.timeout()).build();
        this.deliveredEvents = Counter.builder("resolver.relay.delivered.events")
                .description("events delivered to consumers (a redelivery counts again)").register(registry);
        this.failedDeliveries = Counter.builder("resolver.relay.failed.deliveries")
                .description("deliveries that failed and were scheduled for retry").register(registry);
        this.refusedDeliveries = Counter.builder("resolver.relay.refused.deliveries")
                .description("deliveries not sent because the consumer's delivery URL is outside "
                        + "RELAY_ALLOWED_DELIVERY_URLS (each also counts as a failed delivery)").register(registry);
        this.oversizedEvents = Counter.builder("resolver.relay.oversized.events")
                .description("events whose wire is over the limit every consumer accepts (written before the limits;"
                        + " sent alone, a consumer may refuse them)").register(registry);
        this.fullScans = Counter.builder("resolver.relay.scans").tag("kind", "all")
                .description("dispatcher passes that looked for due consumers of every stream (poll, retry, start)")
                .register(registry);
        this.notifiedScans = Counter.builder("resolver.relay.scans").tag("kind", "notified")
                .description("dispatcher passes that looked only at the streams commit notifications named")
                .register(registry);
        this.deliveryTime = deliveryTimer(registry, "delivered");
        this.failedDeliveryTime = deliveryTimer(registry, "failed");
        this.deliveryLag = Timer.builder("resolver.relay.lag")
                .description("from the write of the oldest event of a delivery to the consumer's acknowledgement")
                .publishPercentileHistogram().register(registry);
    }

    private static Timer deliveryTimer(MeterRegistry registry, String outcome) {
        return Timer.builder("resolver.relay.delivery")
                .description("one delivery's HTTP round trip, the consumer's processing included")
                .tag("outcome", outcome).publishPercentileHistogram().register(registry);
    }

    @Override
    public void start() {
        if (!props.enabled()) {
            log.info("outbox relay disabled (relay.enabled=false)");
            return;
        }
        running = true;
        retryTimer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("relay-retry-timer"));
        publisher = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("relay-publisher"));
        long publishMs = Math.max(1, props.publishInterval().toMillis());
        publisher.scheduleWithFixedDelay(this::publishTick, publishMs, publishMs, TimeUnit.MILLISECONDS);
        int n = Math.max(1, props.workers());
        workers = new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named("relay-delivery"));
        listener = new CommitListener(dataSource.getJdbcUrl(), dataSource.getUsername(), dataSource.getPassword(),
                this::committed);
        listenerThread = DaemonThreads.newThread(listener, "relay-listener");
        listenerThread.start();
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
        publisher.shutdownNow();
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
        for (String payload : payloads) {
            StreamEpoch s = parse(payload);
            if (s != null) {
                committedSince.add(s);
                dueStreams.add(s);
            } else {
                named = false;
            }
        }
        publishWanted.set(true);
        if (!named) {
            scanAll.set(true);
        }
        signal();
    }

    private static StreamEpoch parse(String payload) {
        String[] parts = payload == null ? new String[0] : payload.split("/");
        try {
            return parts.length == 3 ? new StreamEpoch(new StreamId(parts[0], parts[1]), Long.parseLong(parts[2]))
                    : null;
        } catch (RuntimeException notOurs) {
            return null;
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
        Due next = null;
        try {
            next = drain(due, p);
        } catch (RuntimeException e) {
            log.warn("delivery to consumer {} of {} epoch {} failed: {}", due.consumerId(), due.stream(), due.epoch(),
                    e.toString());
        }
        if (next != null && running) {
            submit(next, key); // keeps the key and the claim: back of the queue, behind the consumers waiting
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

    /** @return the consumer to serve again later (claim held) when other consumers wait for a thread, else null */
    private Due drain(Due due, Progress p) {
        if (!gate.mayRelay(due.stream(), due.epoch(), due.head())) {
            return null; // fenced, rolled back or the control store is out of reach: the next cycle asks again
        }
        long claimSeconds = Math.max(1, props.claim().toSeconds());
        Optional<List<Event>> claimed = repo.claimAndRead(due, instance, claimSeconds, due.delivered(),
                props.batchEvents());
        if (claimed.isEmpty()) {
            return null; // another instance holds it
        }
        List<Event> events = claimed.get();
        long after = due.delivered();
        while (true) {
            if (events.isEmpty()) {
                repo.release(due, instance);
                return null;
            }
            long through = post(due, after, events);
            if (through < 0) {
                return null; // failed: recorded, claim released, retry scheduled
            }
            deliveredSince.add(new StreamEpoch(due.stream(), due.epoch()));
            publishWanted.set(true);
            p.seenWakes = wakes.get();
            Optional<Boolean> more = repo.delivered(due, through, instance, claimSeconds);
            if (more.isEmpty() || !more.get() || !running) {
                return null; // claim lost, or caught up and released (or stopping: released at stop)
            }
            after = through;
            if (!workers.getQueue().isEmpty()) {
                return new Due(due.consumerId(), due.stream(), due.epoch(), due.deliveryUrl(), after, due.head());
            }
            p.seenWakes = wakes.get();
            events = repo.events(due.stream(), due.epoch(), after, props.batchEvents());
        }
    }

    /**
     * Sends the longest prefix of {@code events} within the byte bound (at least one event): the UTF-8 size of the
     * whole body, digests and framing included, at most {@code relay.batch-bytes} and never over
     * {@link JsonLimits#MAX_DELIVERY_BYTES}, the least every consumer's inbox accepts.
     *
     * @return the last position the consumer acknowledged, or -1 when the delivery failed
     */
    private long post(Due due, long after, List<Event> events) {
        DeliveryBody body = new DeliveryBody(256 * events.size() + 16);
        body.writeBytes(BODY_OPEN);
        long bound = Math.min(props.batchBytes(), JsonLimits.MAX_DELIVERY_BYTES);
        long bytes = BODY_OPEN.length + BODY_CLOSE.length;
        long through = after;
        int count = 0;
        for (Event e : events) {
            // encoded once: its length is the element's size in the body, and its bytes are what is sent
            byte[] element = EventWire.withDigest(e.wire(), e.chainDigest()).getBytes(StandardCharsets.UTF_8);
            long size = element.length;
            if (count > 0 && bytes + 1 + size > bound) {
                break;
            }
            if (count > 0) {
                body.write(',');
                bytes++;
            }
            if (count == 0 && bytes + size > JsonLimits.MAX_DELIVERY_BYTES) {
                oversizedEvents.increment();
                log.error("event {} of {} epoch {} is {} bytes with its digest, over the delivery limit of {} bytes "
                        + "(written before the limits of docs/writes.md): sent alone, consumer {} may refuse it",
                        e.position(), due.stream(), due.epoch(), size, JsonLimits.MAX_DELIVERY_BYTES,
                        due.consumerId());
            }
            body.writeBytes(element);
            bytes += size;
            through = e.position();
            count++;
        }
        body.writeBytes(BODY_CLOSE);
        long started = System.nanoTime();
        try {
            if (!allowlist.allows(due.deliveryUrl())) {
                // registered before the allowlist existed or was narrowed: the token never goes there
                refusedDeliveries.increment();
                throw new DeliveryFailed("delivery URL " + abbreviate(due.deliveryUrl()) + " is outside "
                        + "RELAY_ALLOWED_DELIVERY_URLS: not sent; re-register the consumer with an allowed URL, or "
                        + "deregister it");
            }
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(due.deliveryUrl()))
                    .timeout(props.timeout())
                    .header("Content-Type", "application/json")
                    .POST(body.publisher());
            if (!props.token().isEmpty()) {
                req.header("Authorization", "Bearer " + props.token());
            }
            HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() / 100 != 2) {
                throw new DeliveryFailed("HTTP " + res.statusCode() + ": " + abbreviate(res.body()));
            }
            deliveryTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            deliveryLag.record(Duration.between(events.get(0).occurredAt(), Instant.now()));
            deliveredEvents.increment(count);
            return through;

        } catch (Exception e) {
            failedDeliveryTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            int failures = repo.failures(due) + 1;
            double backoff = backoffSeconds(failures);
            failedDeliveries.increment();
            log.warn("delivery of {} events ({}..{}) of {} epoch {} to consumer {} failed ({} in a row), retry in {} s: {}",
                    count, after + 1, through, due.stream(), due.epoch(), due.consumerId(), failures,
                    String.format("%.2f", backoff), e.getMessage());
            repo.failed(due, abbreviate(String.valueOf(e.getMessage())), backoff, instance);
            try {
                retryTimer.schedule(this::wake, (long) (backoff * 1000) + 5, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                // the next start polls anyway
            }
            return -1;
        }
    }

    /** Exponential from the initial delay, capped, with full jitter in its upper half (see
     * {@link RelayProperties#backoff}). */
    double backoffSeconds(int failures) {
        return props.backoff().jitteredPause(failures, ThreadLocalRandom.current()).toNanos() / 1e9;
    }

    /**
     * Marks published what every push consumer has (or everything, for streams without one). After deliveries and
     * commits, at most once per {@code relay.publish-interval}, only the streams delivered or committed to since the
     * last tick; once per poll interval, every stream whose cursor is ahead of what this instance knows is published
     * (lost notifications, progress reported without a delivery, other instances' commits). Each stream's
     * published-through position is remembered, so the poll skips streams whose watermark is at their head; a
     * publish is one insert into {@code outbox_publish} per batch, never an update of outbox rows.
     */
    private void publishTick() {
        boolean pollDue = System.nanoTime() - lastPublishNanos >= props.pollInterval().toNanos();
        if (!publishWanted.getAndSet(false) && !pollDue) {
            return;
        }
        Set<StreamEpoch> streams = new HashSet<>();
        for (Set<StreamEpoch> since : List.of(deliveredSince, committedSince)) {
            for (var it = since.iterator(); it.hasNext(); ) {
                streams.add(it.next());
                it.remove();
            }
        }
        try {
            if (pollDue) {
                lastPublishNanos = System.nanoTime();
                for (Head head : repo.heads()) {
                    Long known = publishedThrough.get(head.stream());
                    if (known != null && known > head.position()) {
                        publishedThrough.remove(head.stream()); // the cursor went back (a restore): read again
                        known = null;
                    }
                    if (known == null || known < head.position()) {
                        streams.add(head.stream());
                    }
                }
                if (publishedThrough.size() > 100_000) {
                    publishedThrough.clear(); // fenced epochs pile up over years; the outbox is read again
                }
            }
            for (StreamEpoch s : streams) {
                publish(s);
            }
        } catch (RuntimeException e) {
            publishWanted.set(true);
            deliveredSince.addAll(streams);
            log.warn("publishing delivered events failed: {}", e.toString());
        }
    }

    private void publish(StreamEpoch s) {
        // one statement reads the watermark and advances it; a push consumer registered behind the published prefix
        // brings the target below the watermark, which stays (a cursor that went back is caught by the poll)
        Published done = repo.publish(s.stream(), s.epoch());
        publishedThrough.put(s, done.through());
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    /** A delivery's body in UTF-8, sent from its own buffer (no copy into a String or another array). */
    private static final class DeliveryBody extends ByteArrayOutputStream {
        DeliveryBody(int size) {
            super(size);
        }

        HttpRequest.BodyPublisher publisher() {
            return HttpRequest.BodyPublishers.ofByteArray(buf, 0, count);
        }
    }

    private static final class DeliveryFailed extends Exception {
        DeliveryFailed(String message) {
            super(message);
        }
    }
}
