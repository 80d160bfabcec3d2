package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * Seeded random interleavings (8 threads x 150 operations) of lease create / renew / advance / release, consumer
 * register / report / deregister, writes, publishing and pruning (batches of 3) on one stream. A checker
 * asserts, in single-statement snapshots and after each pin or registration, that pruned-through never
 * passes a live lease's pin, a registered consumer's durable position or the published prefix, that every event
 * above it is still there, and that it only grows. Set {@code -Drace.seed=N} to replay a failure.
 *
 * <p>Checked by hand: with {@code FOR UPDATE} removed from {@link RetentionRepository}'s lock statement this test
 * fails (leases and consumers end up pinned below P, and concurrent prunes trip the pruned-through compare-and-set).
 */
@TestPropertySource(properties = "retention.prune.batch-size=3")
class RetentionRaceIT extends AbstractRetentionIT {

    static final int THREADS = 8;
    static final int OPS_PER_THREAD = 150;
    static final StreamId S = new StreamId("acme", "race");
    static final Caller CONSUMER = new Caller("token-race", Set.of(Role.CONSUMER), Set.of());
    static final Caller OPERATOR = new Caller("token-op", Set.of(Role.OPERATOR), Set.of());

    @Autowired
    ConsumerRegistry registry;

    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    private final AtomicLong publishedUpperBound = new AtomicLong();
    private final AtomicLong lastPrunedThrough = new AtomicLong();
    private final AtomicInteger operations = new AtomicInteger();
    private final AtomicInteger effectivePrunes = new AtomicInteger();

    @Test
    void pruningNeverPassesALivePinARegisteredConsumerOrThePublishedPrefix() throws Exception {
        long seed = Long.getLong("race.seed", System.nanoTime());
        write(S, 20);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        AtomicBoolean running = new AtomicBoolean(true);
        Future<?> checker = pool.submit(() -> {
            while (running.get()) {
                checkSnapshot("checker");
            }
            return null;
        });
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Worker w = new Worker(t, new Random(seed + t));
            workers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < OPS_PER_THREAD; i++) {
                    w.step();
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : workers) {
            f.get(5, TimeUnit.MINUTES);
        }
        running.set(false);
        checker.get(1, TimeUnit.MINUTES);
        pool.shutdown();
        checkSnapshot("final");
        pruner.prune(S, 1);
        checkSnapshot("after a final prune");
        long pDuringRace = retention.prunedThrough(S, 1);
        // once nothing holds it, pruning catches up with the whole published outbox
        jdbc.sql("UPDATE retention_lease SET released_at = clock_timestamp() WHERE released_at IS NULL").update();
        jdbc.sql("DELETE FROM retention_consumer").update();
        publishedUpperBound.set(cursor());
        publishThrough(S, cursor());
        pruner.prune(S, 1);
        checkSnapshot("after releasing everything");

        String context = "seed " + seed + " (replay with -Drace.seed=" + seed + ")";
        long finalP = retention.prunedThrough(S, 1);
        long w = cursor();
        System.err.printf("[race] %s: %d operations, %d prunes deleted rows during the race, P=%d after it, W=%d%n",
                context, operations.get(), effectivePrunes.get(), pDuringRace, w);
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(violations).as(context).isEmpty();
            soft.assertThat(unexpected).as(context).isEmpty();
            soft.assertThat(operations.get()).as(context).isGreaterThanOrEqualTo(1000);
            // the workload really raced pins and registrations against deletes
            soft.assertThat(effectivePrunes.get()).as(context).isGreaterThanOrEqualTo(15);
            soft.assertThat(pDuringRace).as(context).isGreaterThanOrEqualTo(50);
            soft.assertThat(finalP).as(context).isEqualTo(w);
        });
    }

    /** One statement, one snapshot: P against live pins, consumers, the published prefix and the rows above it. */
    private void checkSnapshot(String who) {
        Map<String, Object> row = jdbc.sql("""
                SELECT coalesce((SELECT pruned_through FROM stream_retention
                                  WHERE tenant = 'acme' AND catalog = 'race' AND epoch = 1), 0) AS p,
                       (SELECT min(pin) FROM retention_lease
                         WHERE tenant = 'acme' AND catalog = 'race' AND epoch = 1
                           AND released_at IS NULL AND expires_at > clock_timestamp()) AS min_pin,
                       (SELECT min(durable_position) FROM retention_consumer
                         WHERE tenant = 'acme' AND catalog = 'race' AND epoch = 1) AS min_consumer,
                       (SELECT position FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'race') AS w,
                       (SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'race') AS rows,
                       (SELECT coalesce(min(position), 0) FROM outbox WHERE tenant = 'acme' AND catalog = 'race')
                           AS first_row
                """).query().singleRow();
        long bound = publishedUpperBound.get();
        long p = num(row.get("p"));
        long w = num(row.get("w"));
        long rows = num(row.get("rows"));
        long firstRow = num(row.get("first_row"));
        Long minPin = row.get("min_pin") == null ? null : num(row.get("min_pin"));
        Long minConsumer = row.get("min_consumer") == null ? null : num(row.get("min_consumer"));
        if (minPin != null && p > minPin) {
            violations.add(who + ": pruned through " + p + " above live lease pin " + minPin);
        }
        if (minConsumer != null && p > minConsumer) {
            violations.add(who + ": pruned through " + p + " above consumer durable position " + minConsumer);
        }
        if (p > bound) {
            violations.add(who + ": pruned through " + p + " beyond the published prefix " + bound);
        }
        if (rows != w - p || (rows > 0 && firstRow != p + 1)) {
            violations.add(who + ": P=" + p + " W=" + w + " but " + rows + " rows from " + firstRow);
        }
        long previous = lastPrunedThrough.getAndAccumulate(p, Math::max);
        if (p < previous) {
            violations.add(who + ": pruned-through went back from " + previous + " to " + p);
        }
    }

    /** Right after a pin or registration committed: while it is alive, P must not be above it. */
    private void checkLease(UUID leaseId) {
        Boolean ok = jdbc.sql("""
                SELECT r.pruned_through <= l.pin OR NOT (l.released_at IS NULL AND l.expires_at > clock_timestamp())
                  FROM retention_lease l JOIN stream_retention r USING (tenant, catalog, epoch) WHERE l.lease_id = ?
                """).params(leaseId).query(Boolean.class).single();
        if (!ok) {
            violations.add("lease " + leaseId + " is alive but P passed its pin");
        }
    }

    private void checkConsumer(String consumerId) {
        List<Boolean> ok = jdbc.sql("""
                SELECT r.pruned_through <= c.durable_position
                  FROM retention_consumer c JOIN stream_retention r USING (tenant, catalog, epoch)
                 WHERE c.consumer_id = ?
                """).params(consumerId).query(Boolean.class).list();
        if (ok.contains(Boolean.FALSE)) {
            violations.add("consumer " + consumerId + " is registered but P passed its durable position");
        }
    }

    private static long num(Object o) {
        return ((Number) o).longValue();
    }

    private long cursor() {
        return jdbc.sql("SELECT position FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'race'")
                .query(Long.class).single();
    }

    /** One thread's operations and the leases and consumers it owns. */
    private final class Worker {
        final int id;
        final Random random;
        final List<UUID> leases = new ArrayList<>();
        final List<String> consumers = new ArrayList<>();
        int nextConsumer;

        Worker(int id, Random random) {
            this.id = id;
            this.random = random;
        }

        /*
         * Each worker holds at most two leases and two consumers and keeps them near the head, so pruning keeps
         * moving and new pins and registrations keep racing real deletes (a stuck P would test nothing).
         */
        void step() {
            int dice = random.nextInt(100);
            try {
                if (dice < 14) {
                    write(S, 1 + random.nextInt(3));
                } else if (dice < 28) {
                    publish();
                } else if (dice < 48) {
                    if (pruner.prune(S, 1).pruned() > 0) {
                        effectivePrunes.incrementAndGet();
                    }
                } else if (dice < 58) {
                    if (leases.size() == 2) {
                        retention.release(leases.remove(0));
                    }
                    Duration ttl = Duration.ofMillis(1000 + random.nextInt(1000));
                    Lease l = retention.pinRetention(S, 1, ttl, "worker-" + id);
                    leases.add(l.leaseId());
                    checkLease(l.leaseId());
                    if (random.nextInt(20) > 0) { // like an export: pin, read the snapshot's W, move the pin there
                        retention.advancePin(l.leaseId(), cursor());
                    }
                } else if (dice < 63) {
                    withLease(l -> retention.renew(l, Duration.ofMillis(1000 + random.nextInt(1000))));
                } else if (dice < 72) {
                    long w = cursor();
                    for (UUID l : List.copyOf(leases)) {
                        retention.advancePin(l, Math.max(0, w - random.nextInt(3)));
                    }
                } else if (dice < 77) {
                    withLease(l -> {
                        retention.release(l);
                        leases.remove(l);
                        return null;
                    });
                } else if (dice < 84) {
                    if (consumers.size() == 2) {
                        deregister(consumers.remove(0));
                    }
                    String c = "w" + id + "-c" + (nextConsumer++);
                    registry.register(c, S, 1, null, CONSUMER);
                    consumers.add(c);
                    checkConsumer(c);
                    if (random.nextInt(20) > 0) { // a consumer reports soon after it registers
                        registry.reportProgress(c, S, 1, cursor(), CONSUMER);
                    }
                } else if (dice < 96) {
                    long w = cursor();
                    for (String c : consumers) {
                        registry.reportProgress(c, S, 1, Math.max(0, w - random.nextInt(4)), CONSUMER);
                    }
                } else if (!consumers.isEmpty()) {
                    deregister(consumers.remove(random.nextInt(consumers.size())));
                }
                operations.incrementAndGet();
            } catch (LeaseExpiredException expected) {
                operations.incrementAndGet();
            } catch (ApiException e) {
                if (e.code() == ProblemCode.CURSOR_STALE) {
                    operations.incrementAndGet(); // an advance below P of a lease that is about to be found expired
                } else {
                    unexpected.add(e);
                }
            } catch (RuntimeException e) {
                unexpected.add(e);
            }
        }

        private void deregister(String consumerId) {
            registry.deregister(consumerId, "acme", "race", OPERATOR);
        }

        private void publish() {
            long w = cursor();
            long p = retention.prunedThrough(S, 1);
            long target = Math.max(p, w - random.nextInt(3));
            publishedUpperBound.accumulateAndGet(target, Math::max);
            publishThrough(S, target);
        }

        private void withLease(java.util.function.Function<UUID, Object> action) {
            if (!leases.isEmpty()) {
                action.apply(leases.get(random.nextInt(leases.size())));
            }
        }
    }
}
