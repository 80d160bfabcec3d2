package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.outbox.RelayRepository.Head;
import com.acme.catalog.resolver.outbox.RelayRepository.Published;
import com.acme.catalog.resolver.outbox.RelayRepository.StreamEpoch;

import org.junit.jupiter.api.Test;

/**
 * Which streams a publish tick looks at: after deliveries and commits only those named since the last tick; at a
 * poll every stream whose head is beyond what this instance knows is published; a failed tick's streams again at the
 * next. Ticks are called directly (the thread is not started), so nothing depends on timing.
 */
class PublishTickerTest {

    private static final StreamEpoch A = stream("a");
    private static final StreamEpoch B = stream("b");
    private static final StreamEpoch C = stream("c");
    private static final StreamEpoch D = stream("d");

    private final FakeRepository repo = new FakeRepository();

    @Test
    void betweenPollsATickLooksOnlyAtTheStreamsDeliveredOrCommittedTo() {
        PublishTicker ticker = new PublishTicker(repo, Duration.ofMillis(200), Duration.ofHours(1));
        repo.heads.add(new Head(A, 3));
        repo.heads.add(new Head(B, 5));

        ticker.tick(); // may poll (the first poll is due once System.nanoTime() passes the poll interval)
        int headReads = repo.headReads;

        repo.published.clear();
        ticker.tick(); // nothing delivered or committed, no poll due for an hour
        assertThat(repo.published).isEmpty();

        ticker.delivered(C);
        ticker.tick();
        assertThat(repo.published).containsExactly(C);

        repo.published.clear();
        ticker.committed(List.of(D));
        ticker.tick();
        assertThat(repo.published).containsExactly(D);

        repo.published.clear();
        ticker.committed(List.of()); // a notification naming no stream of its own: nothing to publish until the poll
        ticker.tick();
        assertThat(repo.published).isEmpty();
        assertThat(repo.headReads).as("no poll").isEqualTo(headReads);
    }

    @Test
    void aPollSkipsStreamsPublishedThroughTheirHeadAndReadsAgainOneWhoseCursorWentBack() {
        PublishTicker ticker = new PublishTicker(repo, Duration.ofMillis(200), Duration.ZERO); // every tick polls
        repo.heads.add(new Head(A, 3));
        repo.heads.add(new Head(B, 5));
        repo.watermarks.put(A, 3L);
        repo.watermarks.put(B, 2L); // a push consumer of B has only 2

        ticker.tick();
        assertThat(repo.published).containsExactlyInAnyOrder(A, B);

        repo.published.clear();
        ticker.tick();
        assertThat(repo.published).as("A is published through its head").containsExactly(B);

        repo.published.clear();
        repo.heads.set(0, new Head(A, 1)); // a restore: A's cursor is below what was published
        repo.watermarks.put(A, 1L);
        ticker.tick();
        assertThat(repo.published).containsExactlyInAnyOrder(A, B);

        repo.published.clear();
        ticker.tick();
        assertThat(repo.published).containsExactly(B);
    }

    @Test
    void theStreamsOfAFailedTickArePublishedAtTheNext() {
        PublishTicker ticker = new PublishTicker(repo, Duration.ofMillis(200), Duration.ofHours(1));
        ticker.tick(); // no streams yet

        ticker.delivered(A);
        repo.failures = 1;
        ticker.tick();
        assertThat(repo.published).isEmpty();

        ticker.tick();
        assertThat(repo.published).containsExactly(A);
    }

    private static StreamEpoch stream(String catalog) {
        return new StreamEpoch(new StreamId("acme", catalog), 1);
    }

    /** The two statements the ticker runs, answered from memory. */
    private static final class FakeRepository extends RelayRepository {

        final List<Head> heads = new ArrayList<>();
        final Map<StreamEpoch, Long> watermarks = new HashMap<>();
        final List<StreamEpoch> published = new ArrayList<>();
        int headReads;
        int failures;

        FakeRepository() {
            super(null, null, null);
        }

        @Override
        List<Head> heads() {
            headReads++;
            return List.copyOf(heads);
        }

        @Override
        Published publish(StreamId s, long epoch) {
            if (failures > 0) {
                failures--;
                throw new IllegalStateException("database down");
            }
            StreamEpoch se = new StreamEpoch(s, epoch);
            published.add(se);
            return new Published(watermarks.getOrDefault(se, 0L), 0);
        }
    }
}
