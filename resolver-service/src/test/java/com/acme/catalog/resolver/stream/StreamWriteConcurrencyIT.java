package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * The cursor lock under contention: 16 writers x 500 writes on one stream, a random share forced to fail
 * after taking the lock. Committed positions must be exactly 1..N, every snapshot must see a gapless prefix
 * (positions commit in order), and the chain must verify from the stored wire bytes. Removing the
 * {@code FOR UPDATE} from {@link CursorRepository} makes this test fail (checked by hand).
 */
class StreamWriteConcurrencyIT extends ResolverIT {

    private static final int THREADS = 16;
    private static final int WRITES_PER_THREAD = 500;

    @Autowired
    StreamWriter writer;
    @Autowired
    TransactionTemplate tx;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    ObjectMapper json;

    @Test
    void positionsAreGaplessInCommitOrderUnderContentionWithRollbacks() throws Exception {
        long seed = System.nanoTime();
        StreamId stream = new StreamId("acme", "race");
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger forcedFailures = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        List<String> prefixViolations = new ArrayList<>();

        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        Future<?> observer = pool.submit(() -> {
            while (writing.get()) {
                Map<String, Object> seen = jdbc.sql("""
                        SELECT count(*) AS n, coalesce(max(position), 0) AS top FROM outbox
                         WHERE tenant = 'acme' AND catalog = 'race'
                        """).query().singleRow();
                long n = ((Number) seen.get("n")).longValue();
                long top = ((Number) seen.get("top")).longValue();
                if (n != top) {
                    synchronized (prefixViolations) {
                        prefixViolations.add("snapshot saw " + n + " events up to position " + top);
                    }
                }
            }
        });
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Random random = new Random(seed + t);
            int thread = t;
            workers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < WRITES_PER_THREAD; i++) {
                    boolean fail = random.nextInt(100) < 15;
                    Change change = ChangeParser.upsertItem("sku-" + thread + "-" + (i % 7),
                            json.readTree("{\"attributes\":{\"n\":" + i + "}}"));
                    try {
                        tx.executeWithoutResult(status -> {
                            writer.appendLocked(stream, List.of(List.of(change)));
                            if (fail) {
                                throw new ForcedFailure();
                            }
                        });
                        committed.incrementAndGet();
                    } catch (ForcedFailure e) {
                        forcedFailures.incrementAndGet();
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> w : workers) {
            w.get(5, TimeUnit.MINUTES);
        }
        writing.set(false);
        observer.get(1, TimeUnit.MINUTES);
        pool.shutdown();

        String context = "seed " + seed;
        assertThat(unexpected).as(context).isEmpty();
        assertThat(forcedFailures.get()).as(context).isPositive();
        assertThat(prefixViolations).as(context).isEmpty();
        int n = committed.get();
        assertThat(n + forcedFailures.get()).isEqualTo(THREADS * WRITES_PER_THREAD);

        List<Map<String, Object>> rows = jdbc.sql("""
                SELECT position, wire, chain_digest FROM outbox
                 WHERE tenant = 'acme' AND catalog = 'race' ORDER BY position
                """).query().listOfRows();
        assertThat(rows).as(context).hasSize(n);
        String digest = ChainDigest.ZERO;
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = rows.get(i);
            assertThat(((Number) row.get("position")).longValue()).as(context).isEqualTo(i + 1L);
            digest = ChainDigest.next(digest, (String) row.get("wire"));
            assertThat(row.get("chain_digest")).as("digest at %d, %s", i + 1, context).isEqualTo(digest);
        }
        Map<String, Object> cursor = jdbc.sql(
                "SELECT position, chain_digest FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'race'")
                .query().singleRow();
        assertThat(((Number) cursor.get("position")).longValue()).isEqualTo(n);
        assertThat(cursor.get("chain_digest")).isEqualTo(digest);
        long revisions = jdbc.sql("SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = 'race'")
                .query(Long.class).single();
        assertThat(revisions).isEqualTo(n);
    }

    private static final class ForcedFailure extends RuntimeException {
        ForcedFailure() {
            super("forced failure after the cursor lock", null, false, false);
        }
    }
}
