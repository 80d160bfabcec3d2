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
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO));
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        List<CompletableFuture<WriteResult>> rest = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            rest.add(submit(c, "a" + i));
        }
        awaitQueued(c, 5);
        physical.release();

        assertThat(first.get(10, TimeUnit.SECONDS).firstPosition()).isEqualTo(1);
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
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 3, 500, 1 << 20, Duration.ZERO));
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        List<CompletableFuture<WriteResult>> rest = new ArrayList<>();
        for (int i = 1; i <= 7; i++) {
            rest.add(submit(c, "a" + i));
        }
        awaitQueued(c, 7);
        physical.release();
        first.get(10, TimeUnit.SECONDS);
        for (CompletableFuture<WriteResult> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(physical.groupSizes).containsExactly(1, 3, 3, 1);
    }

    @Test
    void aFailingWriteIsTakenOutAndTheOthersAreRetriedWithoutIt() throws Exception {
        FakePhysical physical = new FakePhysical(id -> id.startsWith("bad"));
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO));
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
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO));
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        physical.failNextUnattributed = true;
        List<CompletableFuture<WriteResult>> rest = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            rest.add(submit(c, "a" + i));
        }
        awaitQueued(c, 4);
        physical.release();
        first.get(10, TimeUnit.SECONDS);
        for (CompletableFuture<WriteResult> f : rest) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(physical.attemptSizes).containsExactly(1, 4, 1, 1, 1, 1);
    }

    @Test
    void aFailedCommitIsNotRetriedAndEveryCallerOfItGetsTheError() throws Exception {
        FakePhysical physical = new FakePhysical(id -> false);
        WriteCoalescer c = coalescer(physical, new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ZERO));
        CompletableFuture<WriteResult> first = submit(c, "a0");
        physical.awaitHeld();
        physical.failNextCommit = true;
        List<CompletableFuture<WriteResult>> rest = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            rest.add(submit(c, "a" + i));
        }
        awaitQueued(c, 3);
        physical.release();
        first.get(10, TimeUnit.SECONDS);
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
    void maxWaitIsBounded() {
        assertThatThrownBy(() -> new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CoalescingProperties(true, 64, 500, 1 << 20, Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A fake physical write that holds nothing: only the coalescer's own wait can group writes. */
    private static FakePhysical unheld() {
        FakePhysical physical = new FakePhysical(id -> false);
        physical.release();
        return physical;
    }

    private static CoalescingProperties waiting(int maxTransactions, Duration maxWait) {
        return new CoalescingProperties(true, maxTransactions, 500, 1 << 20, maxWait);
    }

    private WriteCoalescer coalescer(FakePhysical physical, CoalescingProperties bounds) {
        return new WriteCoalescer(physical, bounds, new StreamMetrics(registry));
    }

    private CompletableFuture<WriteResult> submit(WriteCoalescer c, String itemId) {
        return CompletableFuture.supplyAsync(
                () -> c.write(S, List.of(new Change.DeleteItem(itemId, null)), 10), pool);
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
        long position;
        boolean first = true;

        FakePhysical(Predicate<String> failing) {
            this.failing = failing;
        }

        @Override
        public List<WriteResult> commit(StreamId stream, List<List<Change>> transactions) {
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
            synchronized (this) {
                if (!hold && failNextUnattributed) {
                    failNextUnattributed = false;
                    throw new IllegalStateException("statement failed");
                }
                if (!hold && failNextCommit) {
                    failNextCommit = false;
                    throw new WriteCoalescer.CommitFailure(new IllegalStateException("connection lost during commit"));
                }
                long p = position;
                List<WriteResult> results = new ArrayList<>();
                for (int t = 0; t < transactions.size(); t++) {
                    String id = transactions.get(t).get(0).aggregateId();
                    if (failing.test(id)) {
                        throw new LogicalTransactionFailure(t, new ApiException(ProblemCode.NOT_FOUND, id));
                    }
                    long firstPosition = p + 1;
                    p += transactions.get(t).size();
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
