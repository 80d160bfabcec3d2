package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ExpectedProjection;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * Several relays (or resolver instances) deliver the same events of one new stream at the same time, each in its
 * own shuffled, batched order. The stream's lock must serialize them: every delivery answers 200, exactly one
 * generation is started, every position is processed exactly once, and the projection is the expected one.
 * Removing {@code FOR UPDATE} from {@code GenerationRepository}'s serving lock, or the advisory lock around the
 * empty start, makes this test fail (checked by hand).
 */
class InboxConcurrencyIT extends ProductIT {

    private static final int RELAYS = 6;
    private static final int ROUNDS = 3;

    @Test
    void concurrentDeliveriesOfOneStreamAreSerialized() throws Exception {
        long seed = System.nanoTime();
        Projections projections = new Projections(jdbc);
        ExecutorService pool = Executors.newFixedThreadPool(RELAYS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                StreamId s = new StreamId("race", "round-" + round);
                List<Event> chain = new ChainWriter(s, 1, new Random(seed + round))
                        .appendAll(new CatalogHistory(new Random(seed - round)).random(40));
                ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> relays = new ArrayList<>();
                for (int relay = 0; relay < RELAYS; relay++) {
                    Random r = new Random(seed * 31 + round * 7 + relay);
                    relays.add(pool.submit(() -> {
                        start.await();
                        relay(chain, r, failures);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : relays) {
                    f.get(120, TimeUnit.SECONDS);
                }
                String where = "seed " + seed + " round " + round;
                assertThat(failures).as(where).isEmpty();
                assertThat(jdbc.sql("SELECT count(*) FROM generation WHERE tenant = 'race' AND catalog = ?")
                        .params(s.catalog()).query(Long.class).single()).as(where).isEqualTo(1);
                long g = projections.servingGeneration(s);
                long w = chain.size(); // 40 changes, or 41 when the last draw adds a release and the item's update
                assertThat(projections.cursor(s)).as(where).containsExactly(w, w, w);
                assertThat(projections.held(s)).as(where).isZero();
                assertThat(jdbc.sql("SELECT count(DISTINCT position), count(*) FROM inbox WHERE generation_id = ?")
                        .params(g).query((rs, n) -> rs.getLong(1) + "/" + rs.getLong(2)).single())
                        .as(where).isEqualTo(w + "/" + w);
                ExpectedProjection expected = ExpectedProjection.of(chain);
                assertThat(projections.items(g)).as(where).isEqualTo(expected.items);
                assertThat(projections.publicItems(g)).as(where).isEqualTo(expected.publicItems);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void relay(List<Event> chain, Random r, ConcurrentLinkedQueue<String> failures) {
        List<Event> order = new ArrayList<>(chain);
        Collections.shuffle(order, r);
        for (int i = 0; i < order.size(); ) {
            int n = Math.min(order.size() - i, 1 + r.nextInt(8));
            List<String> batch = new ArrayList<>(n);
            order.subList(i, i + n).forEach(e -> batch.add(e.delivered()));
            ResponseEntity<JsonNode> answer = deliver("r", batch);
            if (answer.getStatusCode().value() != 200) {
                failures.add(answer.getStatusCode() + " " + answer.getBody());
            }
            i += n;
        }
    }
}
