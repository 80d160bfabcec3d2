package com.acme.catalog.resolver.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.platform.concurrent.PeriodicTasks;
import com.acme.catalog.resolver.outbox.RelayRepository.Head;
import com.acme.catalog.resolver.outbox.RelayRepository.Published;
import com.acme.catalog.resolver.outbox.RelayRepository.StreamEpoch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publish watermark, off the delivery path, on a thread of its own ({@code relay-publisher}): marks published
 * what every push consumer has (or everything, for streams without one). After deliveries and commits, at most once
 * per {@code relay.publish-interval}, only the streams delivered or committed to since the last tick; once per poll
 * interval, every stream whose cursor is ahead of what this instance knows is published (lost notifications,
 * progress reported without a delivery, other instances' commits). Each stream's published-through position is
 * remembered, so the poll skips streams whose watermark is at their head; a publish is one insert into
 * {@code outbox_publish} per batch, never an update of outbox rows.
 */
final class PublishTicker {

    private static final Logger log = LoggerFactory.getLogger(PublishTicker.class);

    private final RelayRepository repo;
    private final Duration interval;
    private final Duration pollInterval;
    private final AtomicBoolean wanted = new AtomicBoolean(true);
    /** Streams delivered to, or committed to, since the last tick looked. */
    private final Set<StreamEpoch> deliveredSince = ConcurrentHashMap.newKeySet();
    private final Set<StreamEpoch> committedSince = ConcurrentHashMap.newKeySet();
    /** Ticker thread only: per stream epoch, the position through which every row is known published. */
    private final Map<StreamEpoch, Long> publishedThrough = new HashMap<>();
    private volatile long lastPollNanos;
    private PeriodicTasks tasks;

    PublishTicker(RelayRepository repo, Duration interval, Duration pollInterval) {
        this.repo = repo;
        this.interval = Duration.ofMillis(Math.max(1, interval.toMillis()));
        this.pollInterval = pollInterval;
    }

    void start() {
        tasks = PeriodicTasks.onThread("relay-publisher");
        tasks.every(interval, this::tick, e -> log.warn("publishing delivered events failed: {}", e.toString()));
    }

    /** Stops ticking at once: a publish left undone is done by the next instance's poll. */
    void stop() {
        tasks.stop(Duration.ZERO);
    }

    /** A consumer acknowledged events of {@code stream}: the next tick publishes what every push consumer has. */
    void delivered(StreamEpoch stream) {
        deliveredSince.add(stream);
        wanted.set(true);
    }

    /**
     * Commits were notified, naming {@code streams} (maybe none): the next tick looks at them, so a stream without a
     * push consumer is published shortly after its commit.
     */
    void committed(Collection<StreamEpoch> streams) {
        committedSince.addAll(streams);
        wanted.set(true);
    }

    void tick() {
        boolean pollDue = System.nanoTime() - lastPollNanos >= pollInterval.toNanos();
        if (!wanted.getAndSet(false) && !pollDue) {
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
                lastPollNanos = System.nanoTime();
                streams.addAll(behindTheirHeads());
            }
            for (StreamEpoch s : streams) {
                publish(s);
            }
        } catch (RuntimeException e) {
            wanted.set(true);
            deliveredSince.addAll(streams);
            log.warn("publishing delivered events failed: {}", e.toString());
        }
    }

    /** @return the streams whose cursor is ahead of what this instance knows is published */
    private List<StreamEpoch> behindTheirHeads() {
        List<StreamEpoch> behind = new ArrayList<>();
        for (Head head : repo.heads()) {
            Long known = publishedThrough.get(head.stream());
            if (known != null && known > head.position()) {
                publishedThrough.remove(head.stream()); // the cursor went back (a restore): read again
                known = null;
            }
            if (known == null || known < head.position()) {
                behind.add(head.stream());
            }
        }
        if (publishedThrough.size() > 100_000) {
            publishedThrough.clear(); // fenced epochs pile up over years; the outbox is read again
        }
        return behind;
    }

    private void publish(StreamEpoch s) {
        // one statement reads the watermark and advances it; a push consumer registered behind the published prefix
        // brings the target below the watermark, which stays (a cursor that went back is caught by the poll)
        Published done = repo.publish(s.stream(), s.epoch());
        publishedThrough.put(s, done.through());
    }
}
