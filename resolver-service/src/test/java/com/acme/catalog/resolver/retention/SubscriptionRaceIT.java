package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Pattern subscriptions racing streams' first writes and the pruner (seeded; {@code -Drace.seed=N} replays): writer
 * threads open new streams of one tenant while other threads subscribe consumers to the tenant and a pruner
 * publishes and prunes every stream as fast as it can. Afterwards every subscriber is registered in every stream,
 * and a stream whose first write started after a subscription had committed was never pruned (its subscriber, at
 * position 0, held it).
 *
 * <p>Checked by hand: with the subscription registry's lock taken by neither side ({@code lockShared} and
 * {@code lockExclusive} in {@link SubscriptionRepository} made no-ops), subscribers miss streams opened while
 * they registered and this test fails.
 */
class SubscriptionRaceIT extends AbstractRetentionIT {

    static final String TENANT = "race-sub";
    static final int WRITERS = 4;
    static final int STREAMS_PER_WRITER = 40;
    static final int SUBSCRIBERS = 2;
    static final int SUBSCRIPTIONS_PER_THREAD = 25;
    static final Caller CONSUMER = new Caller("token-race", Set.of(Role.CONSUMER), Set.of());

    @Autowired
    Subscriptions subscriptions;

    @Test
    void everySubscriberHoldsEveryStreamItCouldNotHaveMissed() throws Exception {
        long seed = Long.getLong("race.seed", System.nanoTime());
        String context = "seed " + seed + " (replay with -Drace.seed=" + seed + ")";
        Map<String, Long> subscribedAt = new ConcurrentHashMap<>();
        Map<StreamId, Long> firstWriteStartedAt = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + SUBSCRIBERS + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Random random = new Random(seed + w);
            work.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < STREAMS_PER_WRITER; i++) {
                    StreamId s = new StreamId(TENANT, "w" + writer + "-" + i);
                    firstWriteStartedAt.put(s, System.nanoTime());
                    write(s, 1 + random.nextInt(3));
                }
                return null;
            }));
        }
        for (int t = 0; t < SUBSCRIBERS; t++) {
            int thread = t;
            Random random = new Random(seed + 100 + t);
            work.add(pool.submit(() -> {
                start.await();
                // some streams open (and are pruned) before anyone subscribes
                while (firstWriteStartedAt.size() < 30) {
                    Thread.sleep(1);
                }
                for (int i = 0; i < SUBSCRIPTIONS_PER_THREAD; i++) {
                    String consumer = "sub-" + thread + "-" + i;
                    subscriptions.subscribe(consumer, TENANT, null, CONSUMER);
                    subscribedAt.put(consumer, System.nanoTime());
                    Thread.sleep(random.nextInt(3));
                }
                return null;
            }));
        }
        Future<?> pruning = pool.submit(() -> {
            start.await();
            while (running.get()) {
                for (StreamId s : List.copyOf(firstWriteStartedAt.keySet())) {
                    long head = jdbc.sql("SELECT coalesce(max(position), 0) FROM stream_cursor WHERE tenant = ? "
                            + "AND catalog = ?").params(s.tenant(), s.catalog()).query(Long.class).single();
                    publishThrough(s, head);
                    prune(s);
                }
            }
            return null;
        });
        start.countDown();
        for (Future<?> f : work) {
            f.get(5, TimeUnit.MINUTES);
        }
        running.set(false);
        pruning.get(1, TimeUnit.MINUTES);
        pool.shutdown();

        List<String> missing = new ArrayList<>();
        List<String> prunedUnderASubscriber = new ArrayList<>();
        Set<String> registered = Set.copyOf(jdbc.sql("SELECT consumer_id || ' ' || catalog FROM retention_consumer "
                + "WHERE tenant = ?").params(TENANT).query(String.class).list());
        for (StreamId s : firstWriteStartedAt.keySet()) {
            long pruned = prunedThroughInDb(s);
            for (Map.Entry<String, Long> sub : subscribedAt.entrySet()) {
                if (!registered.contains(sub.getKey() + " " + s.catalog())) {
                    missing.add(sub.getKey() + " in " + s);
                }
                if (sub.getValue() < firstWriteStartedAt.get(s) && pruned > 0) {
                    prunedUnderASubscriber.add(s + " pruned through " + pruned + " under " + sub.getKey());
                }
            }
        }
        long prunedStreams = firstWriteStartedAt.keySet().stream().filter(s -> prunedThroughInDb(s) > 0).count();
        System.err.printf("[race] %s: %d streams, %d subscriptions, %d streams pruned%n", context,
                firstWriteStartedAt.size(), subscribedAt.size(), prunedStreams);
        // the pruner really pruned streams nobody held
        assertThat(prunedStreams).as(context).isPositive();
        assertThat(missing).as(context).isEmpty();
        assertThat(prunedUnderASubscriber).as(context).isEmpty();
    }
}
