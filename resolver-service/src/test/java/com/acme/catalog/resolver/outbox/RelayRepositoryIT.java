package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.outbox.RelayRepository.Published;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The relay's bookkeeping statements, driven directly (relay threads are off here): the published mark costs the
 * rows it marks (a publish call looks only above the position it is told every row is published through, so a
 * stream's retained outbox is not re-read on every tick), and the claim taken together with the first batch is
 * exclusive between instances.
 */
class RelayRepositoryIT extends ResolverIT {

    private static final StreamId S = new StreamId("acme", "publish");
    private static final StreamId PUSHED = new StreamId("acme", "pushed");

    @Autowired
    RelayRepository repo;
    @Autowired
    JdbcClient jdbc;

    @Test
    void publishesOnlyAboveTheKnownPublishedPositionAndAnswersItsTarget() {
        write(S, 3);
        // no push consumer: everything committed is published
        assertThat(repo.publishedThrough(S, 1)).isZero();
        Published first = repo.publish(S, 1, 0);
        assertThat(first).isEqualTo(new Published(3, 3));
        assertThat(unpublished(S)).isEmpty();
        assertThat(repo.publishedThrough(S, 1)).isEqualTo(3);

        // a row below the bound that is unpublished (only by hand) is not looked at again: the bound is the contract
        jdbc.sql("UPDATE outbox SET published_at = NULL WHERE catalog = 'publish' AND position = 2").update();
        write(S, 2);
        Published second = repo.publish(S, 1, 3);
        assertThat(second).isEqualTo(new Published(5, 2));
        assertThat(unpublished(S)).containsExactly(2L);

        // asked from the outbox, the bound drops to just below the first unpublished row, and a call from there
        // marks it
        assertThat(repo.publishedThrough(S, 1)).isEqualTo(1);
        assertThat(repo.publish(S, 1, 1)).isEqualTo(new Published(5, 1));
        assertThat(unpublished(S)).isEmpty();
    }

    @Test
    void aPushConsumerHoldsTheTargetAtWhatItHas() {
        write(PUSHED, 4);
        assertThat(post("/v1/retention/consumers", "c", """
                {"consumerId":"pusher","tenant":"acme","catalog":"pushed","epoch":1,
                 "deliveryUrl":"http://localhost:9/none"}""").status()).isLessThan(300);
        assertThat(put("/v1/retention/consumers/pusher/progress", "c", """
                {"tenant":"acme","catalog":"pushed","epoch":1,"position":1}""").status()).isEqualTo(200);
        assertThat(repo.publish(PUSHED, 1, 0)).isEqualTo(new Published(1, 1));
        assertThat(unpublished(PUSHED)).containsExactly(2L, 3L, 4L);
        // nothing more is delivered: a second call marks nothing and keeps the target
        assertThat(repo.publish(PUSHED, 1, 1)).isEqualTo(new Published(1, 0));
    }

    @Test
    void theClaimAndItsFirstBatchComeInOneStatementAndOnlyOneInstanceHoldsTheClaim() {
        StreamId claims = new StreamId("acme", "claims");
        write(claims, 3);
        assertThat(post("/v1/retention/consumers", "c", """
                {"consumerId":"pusher","tenant":"acme","catalog":"claims","epoch":1,
                 "deliveryUrl":"http://localhost:9/none"}""").status()).isLessThan(300);
        RelayRepository.Due due = new RelayRepository.Due("pusher", claims, 1, "http://localhost:9/none", 0, 3);

        var first = repo.claimAndRead(due, "instance-a", 30, 0, 2);
        assertThat(first).isPresent();
        assertThat(first.get()).extracting(RelayRepository.Event::position).containsExactly(1L, 2L);
        // another instance gets nothing while A holds it, not even an empty batch
        assertThat(repo.claimAndRead(due, "instance-b", 30, 0, 2)).isEmpty();
        // A delivers through 2: more waits, so A keeps the claim; then through 3: caught up, released
        assertThat(repo.delivered(due, 2, "instance-a", 30)).contains(true);
        assertThat(repo.claimAndRead(due, "instance-b", 30, 2, 2)).isEmpty();
        assertThat(repo.delivered(due, 3, "instance-a", 30)).contains(false);
        var taken = repo.claimAndRead(due, "instance-b", 30, 3, 2);
        assertThat(taken).isPresent();
        assertThat(taken.get()).isEmpty(); // claimed, nothing left to send
        // a claim that is not held cannot be released or advanced by someone else
        repo.release(due, "instance-a");
        assertThat(repo.claimAndRead(due, "instance-a", 30, 3, 2)).isEmpty();
        repo.release(due, "instance-b");
        assertThat(repo.claimAndRead(due, "instance-a", 30, 3, 2)).isPresent();
    }

    private void write(StreamId s, int items) {
        for (int i = 0; i < items; i++) {
            assertThat(put("/v1/streams/acme/" + s.catalog() + "/items/i" + i, "w", "{\"attributes\":{}}")
                    .status()).isEqualTo(200);
        }
    }

    private List<Long> unpublished(StreamId s) {
        return jdbc.sql("SELECT position FROM outbox WHERE catalog = ? AND published_at IS NULL ORDER BY 1")
                .params(s.catalog()).query(Long.class).list();
    }
}
