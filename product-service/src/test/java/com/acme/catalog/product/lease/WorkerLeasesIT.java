package com.acme.catalog.product.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationCursor;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.support.ProductIT;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two product instances on one database, as two {@link WorkerLeases} with different owners: only one holds a
 * stream's worker lease; takeover after expiry bumps the fence; a write transaction of the replaced instance is
 * refused by the fence check and leaves nothing behind; shutdown releases the lease at once.
 */
class WorkerLeasesIT extends ProductIT {

    private static final StreamId S = new StreamId("acme", "leases");

    @Autowired
    PlatformTransactionManager tm;
    @Autowired
    GenerationRepository generations;

    private WorkerLeases node(String owner, long ttlSeconds) {
        return new WorkerLeases(jdbc, new SimpleMeterRegistry(), owner, ttlSeconds);
    }

    @Test
    void onlyOneInstanceWinsTheLease() {
        StreamId s = new StreamId("acme", "once");
        WorkerLeases a = node("node-a", 30);
        WorkerLeases b = node("node-b", 30);

        WorkerFence fa = a.hold(s).orElseThrow();
        assertThat(fa.fence()).isEqualTo(1);
        assertThat(b.hold(s)).isEmpty();
        assertThat(a.hold(s)).contains(fa);
        assertThat(b.holder(s)).contains("node-a");
        assertThat(a.renew(fa)).isTrue();
        assertThat(b.hold(s)).isEmpty();
    }

    @Test
    void takeoverAfterExpiryBumpsTheFenceAndTheOldOwnerCannotRenew() throws Exception {
        StreamId s = new StreamId("acme", "expiry");
        WorkerLeases a = node("node-a", 1);
        WorkerLeases b = node("node-b", 30);
        WorkerFence fa = a.hold(s).orElseThrow();
        assertThat(b.hold(s)).isEmpty();

        Thread.sleep(1300); // the database clock decides: the 1 s lease has expired, nobody renewed it
        WorkerFence fb = b.hold(s).orElseThrow();

        assertThat(fb.fence()).isEqualTo(fa.fence() + 1);
        assertThat(a.renew(fa)).isFalse();
        assertThat(a.isHeld(fa)).isFalse();
        assertThat(a.current(s)).isEmpty();
        assertThat(a.hold(s)).as("the new owner's lease is valid").isEmpty();
    }

    /**
     * A rolling projection upgrade (docs/runbooks/projection-upgrade.md): an instance of a newer projection version
     * takes the lease over from a live holder of an older one (whose fence then fails), and the older one cannot take
     * it back while it is valid. Without the version rule in the acquire the newer instance waits for expiry.
     */
    @Test
    void aNewerProjectionVersionTakesTheLeaseOverFromALiveOlderHolderNeverTheReverse() {
        StreamId s = new StreamId("acme", "versions");
        WorkerLeases older = new WorkerLeases(jdbc, new SimpleMeterRegistry(), "node-v1", 30, 1);
        WorkerLeases newer = new WorkerLeases(jdbc, new SimpleMeterRegistry(), "node-v2", 30, 2);
        WorkerFence f1 = older.hold(s).orElseThrow();

        WorkerFence f2 = newer.hold(s).orElseThrow();
        assertThat(f2.fence()).isEqualTo(f1.fence() + 1);
        assertThat(older.isHeld(f1)).isFalse();
        assertThat(older.renew(f1)).isFalse();
        assertThat(older.hold(s)).as("the newer holder's lease is valid").isEmpty();
        assertThat(newer.isHeld(f2)).isTrue();
    }

    @Test
    void oneStatementRenewsEveryHeldLeaseAndDropsTheOnesLost() throws Exception {
        WorkerLeases a = node("node-many", 2);
        List<WorkerFence> fences = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fences.add(a.hold(new StreamId("acme", "many-" + i)).orElseThrow());
        }
        Thread.sleep(1100);
        a.renewAll(); // every lease: 2 s again from now
        // one of them taken over after it expired: node-many must notice at its next renewal
        jdbc.sql("UPDATE recovery_lease SET expires_at = clock_timestamp() WHERE catalog = 'many-7'").update();
        WorkerFence taken = node("node-other", 30).hold(new StreamId("acme", "many-7")).orElseThrow();
        Thread.sleep(1100); // past the first 2 s: only a renewal kept the others
        a.renewAll();
        for (WorkerFence f : fences) {
            assertThat(a.isHeld(f)).as("%s", f).isEqualTo(!f.stream().catalog().equals("many-7"));
        }
        assertThat(a.current(new StreamId("acme", "many-7"))).isEmpty();
        assertThat(taken.fence()).isEqualTo(2);
    }

    @Test
    void aRestartedInstanceWithTheSameIdTakesOverAtOnceWithANewFence() {
        StreamId s = new StreamId("acme", "restart");
        WorkerFence before = node("node-a", 30).hold(s).orElseThrow();
        WorkerFence after = node("node-a", 30).hold(s).orElseThrow();
        assertThat(after.fence()).isEqualTo(before.fence() + 1);
    }

    /**
     * The replaced worker's transaction writes a cursor, then the lease expires and the other instance takes it
     * over; the fence check at the end of the old worker's transaction refuses, the transaction rolls back and
     * the cursor is unchanged. Without the check in {@link WorkerLeases#requireHeld} the stale write commits.
     */
    @Test
    void aStaleWriteAfterTakeoverIsRefusedAndRolledBack() throws Exception {
        WorkerLeases a = node("node-a", 1);
        WorkerLeases b = node("node-b", 30);
        GenerationCursor start = new TransactionTemplate(tm).execute(st -> generations.startServingEmpty(S, 1));
        WorkerFence fa = a.hold(S).orElseThrow();

        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch takenOver = new CountDownLatch(1);
        CompletableFuture<Void> stale = CompletableFuture.runAsync(() -> new TransactionTemplate(tm).executeWithoutResult(st -> {
            GenerationCursor locked = generations.lockGeneration(start.generationId()).orElseThrow();
            generations.saveCursor(locked.advancedTo(0, locked.chainDigest(), 0, 42));
            written.countDown();
            try {
                takenOver.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            a.requireHeld(fa);
        }));
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(1300);
        WorkerFence fb = b.hold(S).orElseThrow();
        takenOver.countDown();

        assertThatThrownBy(stale::join).hasCauseInstanceOf(FencedOutException.class)
                .hasMessageContaining("now held by node-b with fence " + fb.fence());
        assertThat(generations.serving(S).orElseThrow().highestSeenPosition()).as("nothing written").isZero();

        // the new owner's write under its fence commits
        new TransactionTemplate(tm).executeWithoutResult(st -> {
            GenerationCursor locked = generations.lockGeneration(start.generationId()).orElseThrow();
            generations.saveCursor(locked.advancedTo(0, locked.chainDigest(), 0, 7));
            b.requireHeld(fb);
        });
        assertThat(generations.serving(S).orElseThrow().highestSeenPosition()).isEqualTo(7);
        // and the old owner, which does not hold it any more, cannot take it back while it is valid
        assertThat(a.hold(S)).isEmpty();
    }

    /** A takeover waits for an in-flight write that already passed the fence check: they cannot interleave. */
    @Test
    void aTakeoverWaitsForTheWriteHoldingTheLeaseRow() throws Exception {
        StreamId s = new StreamId("acme", "interleave");
        WorkerLeases a = node("node-a", 1);
        WorkerLeases b = node("node-b", 30);
        WorkerFence fa = a.hold(s).orElseThrow();
        CountDownLatch checked = new CountDownLatch(1);
        CompletableFuture<Long> commitNanos = CompletableFuture.supplyAsync(() -> new TransactionTemplate(tm).execute(st -> {
            a.requireHeld(fa);
            checked.countDown();
            try {
                Thread.sleep(1500); // the lease expires meanwhile, but its row is locked
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return System.nanoTime();
        }));
        assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(1100);
        WorkerFence fb = b.hold(s).orElseThrow();
        long takenNanos = System.nanoTime();
        assertThat(takenNanos).as("takeover only after the holder committed").isGreaterThan(commitNanos.join());
        assertThat(fb.fence()).isEqualTo(fa.fence() + 1);
    }

    @Test
    void shutdownReleasesTheLeaseSoAnotherInstanceTakesOverAtOnce() {
        StreamId s = new StreamId("acme", "shutdown");
        WorkerLeases a = node("node-a", 300);
        WorkerLeases b = node("node-b", 300);
        a.start();
        WorkerFence fa = a.hold(s).orElseThrow();
        assertThat(b.hold(s)).isEmpty();

        a.stop();

        assertThat(a.isRunning()).isFalse();
        assertThat(jdbc.sql("SELECT expires_at <= clock_timestamp() FROM recovery_lease WHERE catalog = 'shutdown'")
                .query(Boolean.class).single()).isTrue();
        assertThat(a.hold(s)).as("a stopping instance acquires nothing any more").isEmpty();
        assertThat(b.hold(s).orElseThrow().fence()).isEqualTo(fa.fence() + 1);
    }

    @Test
    void theFenceCheckNeedsTheWritingTransaction() {
        WorkerLeases a = node("node-a", 30);
        WorkerFence fa = a.hold(new StreamId("acme", "notx")).orElseThrow();
        assertThatThrownBy(() -> a.requireHeld(fa)).isInstanceOf(IllegalStateException.class);
    }
}
