package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coalescer's queue and failure isolation against a fake physical write: the first physical transaction is
 * held open while others queue, so the groups are deterministic.
 */
class WriteCoalescerTest {

    private static final StreamId S = new StreamId("acme", "unit");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void writesQueuedBehindAnInFlightTransactionShareTheNextOne() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO, 0));
        List<CompletableFuture<WriteResult>> rest = queueBehindAHeldWrite(c, physical, 5, () -> { });

        for (int i = 0; i < 5; i++) {
            assertThat(rest.get(i).get(10, TimeUnit.SECONDS).lastPosition()).isBetween(2L, 6L);
        }
        assertThat(physical.groupSizes).containsExactly(1, 5);
        assertThat(registry.get("resolver.write.coalesced.transactions").summary().max()).isEqualTo(5);
        assertThat(c.queued(S)).isZero();
    }

    @Test
    void boundsSplitTheQueueIntoSeveralTransactions() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 3, 500, 1 << 20, Duration.ZERO, 0));
        List<CompletableFuture<WriteResult>> rest = queueBehindAHeldWrite(c, physical, 7, () -> { });
        for (CompletableFuture<WriteResult> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(physical.groupSizes).containsExactly(1, 3, 3, 1);
    }

    @Test
    void aFailingWriteIsTakenOutAndTheOthersAreRetriedWithoutIt() throws Exception {
        FakePhysical physical = new FakePhysical(id -> id.startsWith("bad"));
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO, 0));
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        List<CompletableFuture<WriteResult>> good = new ArrayList<>();
        List<CompletableFuture<WriteResult>> bad = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            good.add(submit(c, "a" + i));
            if (i % 3 == 0) {
                bad.add(submit(c, "bad" + i));
            }
        }
        awaitQueued(c, 8);
        physical.release();

        first.get(10, TimeUnit.SECONDS);
        List<Long> positions = new ArrayList<>();
        for (CompletableFuture<WriteResult> f : good) {
            positions.add(f.get(10, TimeUnit.SECONDS).firstPosition());
        }
        assertThat(positions).containsExactlyInAnyOrder(2L, 3L, 4L, 5L, 6L, 7L);
        for (CompletableFuture<WriteResult> f : bad) {
            assertThatThrownBy(() -> f.join()).hasCauseInstanceOf(ApiException.class)
                    .cause().hasMessageStartingWith("bad");
        }
        // first attempt with 8, without the first bad one 7, without both 6 committed
        assertThat(physical.attemptSizes).containsExactly(1, 8, 7, 6);
        assertThat(physical.groupSizes).containsExactly(1, 6);
        assertThat(registry.get("resolver.write.retries").counter().count()).isEqualTo(2);
    }

    @Test
    void aFailureNoWriteCausedSendsEachWriteAlone() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO, 0));
        List<CompletableFuture<WriteResult>> rest = queueBehindAHeldWrite(c, physical, 4,
                () -> physical.failNextUnattributed = true);
        for (CompletableFuture<WriteResult> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(physical.attemptSizes).containsExactly(1, 4, 1, 1, 1, 1);
    }

    @Test
    void aRefusalOfTheStreamFailsTheWholeGroupWithoutRetries() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO, 0));
        List<CompletableFuture<WriteResult>> rest = queueBehindAHeldWrite(c, physical, 4,
                () -> physical.failNextRefused = true);
        for (CompletableFuture<WriteResult> f : rest) {
            assertThatThrownBy(f::join).cause().isInstanceOfSatisfying(ApiException.class,
                    e -> assertThat(e.code()).isEqualTo(ProblemCode.STREAM_FENCED));
        }
        assertThat(physical.attemptSizes).containsExactly(1, 4);
    }

    @Test
    void aFailedCommitIsNotRetriedAndEveryCallerOfItGetsTheError() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO, 0));
        List<CompletableFuture<WriteResult>> rest = queueBehindAHeldWrite(c, physical, 3,
                () -> physical.failNextCommit = true);
        for (CompletableFuture<WriteResult> f : rest) {
            assertThatThrownBy(() -> f.join()).cause().hasMessage("connection lost during commit");
        }
        assertThat(physical.attemptSizes).containsExactly(1, 3);
        // the stream keeps working
        assertThat(submit(c, "a9").get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(2);
    }

    @Test
    void withMaxWaitTheLeaderWaitsForCompanionsAndCommitsThemTogether() throws Exception {
        FakePhysical physical = unheld(); // nothing is held: only the wait can group these writes
        WriteCoalescer c = coalescer(physical, waiting(64, Duration.ofSeconds(1)));
        CompletableFuture<WriteResult> first = submit(c, "w0");
        awaitQueued(c, 1); // the leader is waiting with its own write still queued
        CompletableFuture<WriteResult> second = submit(c, "w1");
        CompletableFuture<WriteResult> third = submit(c, "w2");
        awaitQueued(c, 3);

        // the wait ends at max-wait (1 s) at the latest; all three share one physical transaction (without the
        // wait the first would have committed alone at once: nothing holds the physical write)
        assertThat(first.get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(1);
        assertThat(List.of(second.get(10, TimeUnit.SECONDS).lastPosition(),
                third.get(10, TimeUnit.SECONDS).lastPosition())).containsExactlyInAnyOrder(2L, 3L);
        assertThat(physical.groupSizes).containsExactly(3);
    }

    @Test
    void aFullGroupEndsTheWaitAtOnce() throws Exception {
        FakePhysical physical = unheld();
        WriteCoalescer c = coalescer(physical, waiting(3, Duration.ofSeconds(1)));
        long started = System.nanoTime();
        List<CompletableFuture<WriteResult>> writes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            writes.add(submit(c, "f" + i));
        }
        for (CompletableFuture<WriteResult> w : writes) {
            w.get(10, TimeUnit.SECONDS);
        }
        // three writes fill max-transactions: committed without waiting out the second
        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.MILLISECONDS.toNanos(900));
        assertThat(physical.groupSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(3);
        assertThat(physical.groupSizes).contains(3);
    }

    @Test
    void aLoneWriteWaitsNoLongerThanMaxWait() throws Exception {
        FakePhysical physical = unheld();
        WriteCoalescer c = coalescer(physical, waiting(64, Duration.ofMillis(50)));
        long started = System.nanoTime();
        assertThat(submit(c, "alone").get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(1);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(tookMs).isBetween(45L, 5000L);
        assertThat(physical.groupSizes).containsExactly(1);
    }

    @Test
    void anInterruptEndsTheWaitAndReachesTheCallerAfterItsCommit() throws Exception {
        FakePhysical physical = unheld();
        WriteCoalescer c = coalescer(physical, waiting(64, Duration.ofSeconds(1)));
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        CompletableFuture<Boolean> flagAfter = new CompletableFuture<>();
        Thread leader = new Thread(() -> {
            result.complete(c.write(S, List.of(new Change.DeleteItem("i0", null)), 10));
            flagAfter.complete(Thread.currentThread().isInterrupted());
        });
        long started = System.nanoTime();
        leader.start();
        awaitQueued(c, 1);
        leader.interrupt();

        assertThat(result.get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(1);
        assertThat(flagAfter.get(10, TimeUnit.SECONDS)).as("interrupt flag restored after the commit").isTrue();
        assertThat(physical.interruptedAtCommit).as("the commit ran without the flag").containsExactly(false);
        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.MILLISECONDS.toNanos(900));
        assertThat(physical.groupSizes).containsExactly(1);
    }

    @Test
    void aLoneSequentialWriterNeverWaitsHoweverFastItWrites() throws Exception {
        FakePhysical physical = unheld();
        // waits only on a busy stream (100 writes/s and overlapping writes); a 1 s wait is easy to tell from none
        WriteCoalescer c = coalescer(physical, gated(Duration.ofSeconds(1)));
        long started = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            // each write as soon as the last is answered: far above 100/s, but never two at once
            assertThat(took(c, "seq" + i)).as("write %d", i).isLessThan(600);
        }
        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(physical.groupSizes).hasSize(100).containsOnly(1);
        assertThat(waits()).as("leaders that waited").isZero();
    }

    @Test
    void closedLoopClientsAllQueuedEndTheWaitEarly() throws Exception {
        FakePhysical physical = unheld();
        WriteCoalescer c = coalescer(physical, gated(Duration.ofSeconds(1)));
        // four clients, each sending its next write as soon as the last is answered: the stream is busy (far above
        // 100/s, writes overlap), but once all four are queued nobody else can come; the leader must not wait out
        // max-wait for them (120 writes in groups of up to four would take 30 s and more)
        long started = System.nanoTime();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int client = t;
            clients.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 30; i++) {
                    c.write(S, List.of(new Change.DeleteItem("c" + client + "-" + i, null)), 10);
                }
            }, pool));
        }
        for (CompletableFuture<Void> client : clients) {
            client.get(60, TimeUnit.SECONDS);
        }
        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(8));
        assertThat(physical.groupSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(120);
        // leaders may wait briefly while the others come back; without the silence rule each wait is a full second
        assertThat(waitedMillis()).as("all leaders' waits together, ms").isLessThan(500);
    }

    @Test
    void onASteadilyBusyStreamLeadersWaitAndGroupsGrow() throws Exception {
        FakePhysical physical = unheld();
        physical.commitMillis = 3; // a commit takes 3 ms, so writes arriving every 2 ms overlap
        WriteCoalescer c = coalescer(physical, gated(Duration.ofSeconds(1)));
        List<CompletableFuture<WriteResult>> writes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            writes.add(submit(c, "s" + i)); // open loop: one write every 2 ms, whatever the answers
            Thread.sleep(2);
        }
        for (CompletableFuture<WriteResult> w : writes) {
            w.get(30, TimeUnit.SECONDS);
        }
        // without the wait a group holds what arrived during one 3 ms commit (one or two writes); with it, a
        // leader keeps collecting while writes keep coming, up to 64
        assertThat(physical.groupSizes.stream().mapToInt(Integer::intValue).max().orElseThrow())
                .isGreaterThanOrEqualTo(16);
        assertThat(waits()).as("leaders that waited").isPositive();
        assertThat(physical.groupSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(200);
    }

    @Test
    void overlappingWritesOfAQuietStreamDoNotWait() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false); // holds the first physical write until released
        WriteCoalescer c = coalescer(physical, gated(Duration.ofSeconds(1)));
        CompletableFuture<WriteResult> first = submit(c, "q0");
        physical.awaitHeld();
        CompletableFuture<WriteResult> second = submit(c, "q1");
        CompletableFuture<WriteResult> third = submit(c, "q2");
        awaitQueued(c, 2);
        long released = System.nanoTime();
        physical.release();
        // two writes queued together (they overlap, and the last arrived just now), but the stream's rate is three
        // writes in its life, far below 100/s: the next leader commits them at once instead of waiting for more
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        third.get(10, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - released).isLessThan(TimeUnit.MILLISECONDS.toNanos(600));
        assertThat(physical.groupSizes).containsExactly(1, 2);
        assertThat(waits()).as("leaders that waited").isZero();
    }

    @Test
    void maxWaitIsBounded() {
        assertThatThrownBy(() -> new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ofMillis(-1), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ofSeconds(2), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ofMillis(5), -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A fake physical write that holds nothing: only the coalescer's own wait can group writes. */
    private static FakePhysical unheld() {
        FakePhysical physical = new FakePhysical(id -> false);
        physical.release();
        return physical;
    }

    private static CoalescingProperties waiting(int maxTransactions, Duration maxWait) {
        return new CoalescingProperties(true, maxTransactions, 500, 1 << 20, maxWait, 0); // waits whatever the rate
    }

    private WriteCoalescer coalescer(FakePhysical physical, CoalescingProperties bounds) {
        return new WriteCoalescer(physical, bounds, new StreamMetrics(registry));
    }

    private CompletableFuture<WriteResult> submit(WriteCoalescer c, String itemId) {
        return CompletableFuture.supplyAsync(
                () -> c.write(S, List.of(new Change.DeleteItem(itemId, null)), 10), pool);
    }

    /** How many times a leader waited for companions ({@code resolver_write_coalescing_wait_seconds} count). */
    private long waits() {
        return registry.find("resolver.write.coalescing.wait").timers().stream().mapToLong(t -> t.count()).sum();
    }

    /** How long leaders waited for companions, in all. */
    private double waitedMillis() {
        return registry.find("resolver.write.coalescing.wait").timers().stream()
                .mapToDouble(t -> t.totalTime(TimeUnit.MILLISECONDS)).sum();
    }

    /** {@code max-wait} gated by the default rate of 100 writes/s of one stream. */
    private static CoalescingProperties gated(Duration maxWait) {
        return new CoalescingProperties(true, 64, 500, 1 << 20, maxWait, 100);
    }

    /** Milliseconds one write took, submitted alone and awaited. */
    private long took(WriteCoalescer c, String itemId) throws Exception {
        long started = System.nanoTime();
        submit(c, itemId).get(10, TimeUnit.SECONDS);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    /**
     * Holds the first write of the stream ({@code a0}) in its transaction, runs {@code meanwhile} (a fault planted for
     * the next attempt), queues {@code n} writes {@code a1..an} behind it and lets {@code a0} commit at position 1:
     * the queued writes then go as the coalescer groups them.
     */
    private List<CompletableFuture<WriteResult>> queueBehindAHeldWrite(WriteCoalescer c, FakePhysical physical, int n,
            Runnable meanwhile) throws Exception {
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        meanwhile.run();
        List<CompletableFuture<WriteResult>> rest = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            rest.add(submit(c, "a" + i));
        }
        awaitQueued(c, n);
        physical.release();
        assertThat(first.get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(1);
        return rest;
    }

    private static void awaitQueued(WriteCoalescer c, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.queued(S) < n) {
            assertThat(System.nanoTime()).as("%d writes queued", n).isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    /**
     * Gives positions like the real path (each change one position, failed attempts consume none), holds its
     * first call until released, and fails a write whose item id the predicate names.
     */
    private static final class FakePhysical implements WriteCoalescer.PhysicalWrite {
        final List<Integer> attemptSizes = new ArrayList<>();
        final List<Integer> groupSizes = new ArrayList<>();
        /** Per call: whether the committing thread's interrupt flag was set (a JDBC call would see it). */
        final List<Boolean> interruptedAtCommit = new ArrayList<>();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        final Predicate<String> failing;
        volatile boolean failNextUnattributed;
        volatile boolean failNextCommit;
        volatile boolean failNextRefused;
        long position;
        boolean first = true;
        /** How long each physical write takes after any hold (a real commit is not instant). */
        volatile long commitMillis;

        FakePhysical(Predicate<String> failing) {
            this.failing = failing;
        }

        @Override
        public List<WriteResult> commit(StreamId stream, List<LogicalWrite> transactions) {
            boolean hold;
            synchronized (this) {
                hold = first;
                first = false;
                attemptSizes.add(transactions.size());
                interruptedAtCommit.add(Thread.currentThread().isInterrupted());
            }
            if (hold) {
                held.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            if (commitMillis > 0) {
                try {
                    Thread.sleep(commitMillis);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            synchronized (this) {
                if (!hold && failNextUnattributed) {
                    failNextUnattributed = false;
                    throw new IllegalStateException("statement failed");
                }
                if (!hold && failNextRefused) {
                    failNextRefused = false;
                    throw new ApiException(ProblemCode.STREAM_FENCED, "epoch fenced");
                }
                if (!hold && failNextCommit) {
                    failNextCommit = false;
                    throw new WriteCoalescer.CommitFailure(new IllegalStateException("connection lost during commit"));
                }
                long p = position;
                List<WriteResult> results = new ArrayList<>();
                for (int t = 0; t < transactions.size(); t++) {
                    String id = transactions.get(t).changes().get(0).aggregateId();
                    if (failing.test(id)) {
                        throw new LogicalTransactionFailure(t, new ApiException(ProblemCode.NOT_FOUND, id));
                    }
                    long firstPosition = p + 1;
                    p += transactions.get(t).changes().size();
                    results.add(new WriteResult(1, firstPosition, p, UUID.randomUUID(), 1));
                }
                position = p;
                groupSizes.add(transactions.size());
                return results;
            }
        }

        void awaitHeld() throws InterruptedException {
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        }

        void release() {
            released.countDown();
        }
    }
}
