package com.acme.catalog.resolver.outbox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.resolver.outbox.RelayRepository.Due;
import com.acme.catalog.resolver.outbox.RelayRepository.Event;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Pushes each push consumer's events, in position order and bounded batches, to its delivery URL. Woken by commit
 * notifications, with a poll as safety net. Per consumer: a delivery cursor separate from durable progress, a
 * claim so one instance delivers at a time, and exponential backoff with jitter on failure, so a slow or down
 * consumer never stalls the others. Marks events published once every push consumer of the stream has them.
 */
@Component
class OutboxRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelayRepository repo;
    private final RelayProperties props;
    private final HikariDataSource dataSource;
    private final String instance = "relay-" + UUID.randomUUID();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Object signal = new Object();
    private final HttpClient http;
    private final Counter deliveredEvents;
    private final Counter failedDeliveries;
    private volatile boolean running;
    private boolean woken;
    private ExecutorService workers;
    private ScheduledExecutorService retryTimer;
    private Thread dispatcher;
    private Thread listenerThread;
    private CommitListener listener;

    OutboxRelay(RelayRepository repo, RelayProperties props, HikariDataSource dataSource, MeterRegistry registry) {
        this.repo = repo;
        this.props = props;
        this.dataSource = dataSource;
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection to a plain-http consumer
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(props.timeout()).build();
        this.deliveredEvents = Counter.builder("resolver.relay.delivered.events")
                .description("events delivered to consumers (a redelivery counts again)").register(registry);
        this.failedDeliveries = Counter.builder("resolver.relay.failed.deliveries")
                .description("deliveries that failed and were scheduled for retry").register(registry);
    }

    @Override
    public void start() {
        if (!props.enabled()) {
            log.info("outbox relay disabled (relay.enabled=false)");
            return;
        }
        running = true;
        retryTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "relay-retry-timer");
            t.setDaemon(true);
            return t;
        });
        workers = Executors.newFixedThreadPool(Math.max(1, props.workers()), r -> new Thread(r, "relay-delivery"));
        listener = new CommitListener(dataSource.getJdbcUrl(), dataSource.getUsername(), dataSource.getPassword(),
                this::wake);
        listenerThread = new Thread(listener, "relay-listener");
        listenerThread.setDaemon(true);
        listenerThread.start();
        dispatcher = new Thread(this::dispatchLoop, "relay-dispatcher");
        dispatcher.setDaemon(true);
        dispatcher.start();
    }

    @Override
    public void stop() {
        running = false;
        if (listener != null) {
            listener.stop();
        }
        wake();
        if (retryTimer != null) {
            retryTimer.shutdownNow();
        }
        if (workers != null) {
            workers.shutdown();
            try {
                workers.awaitTermination(props.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void dispatchLoop() {
        while (running) {
            try {
                cycle();
                publishStreamsWithoutPushConsumers();
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
                }
                woken = false;
            }
        }
    }

    /** One pass: hand every due consumer (not already being served here) to a delivery worker. */
    void cycle() {
        for (Due due : repo.due(instance, 1000)) {
            String key = due.consumerId() + "|" + due.stream() + "|" + due.epoch();
            if (!inFlight.add(key)) {
                continue;
            }
            try {
                workers.execute(() -> {
                    boolean delivered = false;
                    try {
                        delivered = deliver(due);
                    } finally {
                        inFlight.remove(key);
                    }
                    if (delivered) {
                        wake(); // only now, with the key released: more may have been committed meanwhile
                    }
                });
            } catch (RuntimeException e) {
                inFlight.remove(key);
                throw e;
            }
        }
    }

    /** @return true when a batch was delivered (so there may be more to send) */
    private boolean deliver(Due due) {
        if (!repo.claim(due, instance, Math.max(1, props.claim().toSeconds()))) {
            return false; // another instance holds it
        }
        List<Event> events = repo.events(due.stream(), due.epoch(), due.delivered(), props.batchEvents());
        if (events.isEmpty()) {
            repo.delivered(due, due.delivered(), instance);
            return false;
        }
        StringBuilder body = new StringBuilder(64 * events.size()).append("{\"events\":[");
        long through = due.delivered();
        int count = 0;
        for (Event e : events) {
            if (count > 0 && body.length() + e.wire().length() > props.batchBytes()) {
                break;
            }
            if (count > 0) {
                body.append(',');
            }
            body.append(EventWire.withDigest(e.wire(), e.chainDigest()));
            through = e.position();
            count++;
        }
        body.append("]}");
        try {
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(due.deliveryUrl()))
                    .timeout(props.timeout())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
            if (!props.token().isEmpty()) {
                req.header("Authorization", "Bearer " + props.token());
            }
            HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() / 100 != 2) {
                throw new DeliveryFailed("HTTP " + res.statusCode() + ": " + abbreviate(res.body()));
            }
            repo.delivered(due, through, instance);
            deliveredEvents.increment(count);
            repo.publish(due.stream(), due.epoch());
            return true;

        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            int failures = repo.failures(due) + 1;
            double backoff = backoffSeconds(failures);
            failedDeliveries.increment();
            log.warn("delivery of {} events ({}..{}) of {} epoch {} to consumer {} failed ({} in a row), retry in {} s: {}",
                    count, due.delivered() + 1, through, due.stream(), due.epoch(), due.consumerId(), failures,
                    String.format("%.2f", backoff), e.getMessage());
            repo.failed(due, abbreviate(String.valueOf(e.getMessage())), backoff, instance);
            retryTimer.schedule(this::wake, (long) (backoff * 1000) + 5, TimeUnit.MILLISECONDS);
            return false;
        }
    }

    /** Exponential from the initial delay, capped, with full jitter in its upper half. */
    double backoffSeconds(int failures) {
        double base = props.backoffInitial().toMillis() / 1000.0 * Math.pow(2, Math.min(failures - 1, 20));
        double capped = Math.min(base, props.backoffMax().toMillis() / 1000.0);
        return capped / 2 + ThreadLocalRandom.current().nextDouble() * capped / 2;
    }

    private void publishStreamsWithoutPushConsumers() {
        for (RelayRepository.StreamEpoch s : repo.streamsWithUnpublished()) {
            repo.publish(s.stream(), s.epoch());
        }
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    private static final class DeliveryFailed extends Exception {
        DeliveryFailed(String message) {
            super(message);
        }
    }
}
