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
 * The relay's bookkeeping statements, driven directly (relay threads are off here): the published mark is one
 * watermark row per publish batch (no outbox row is touched, see {@link PublishWatermarkIT}), and the claim taken together with the first batch is
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
    void publishesOneWatermarkRowPerBatchThatNeverMovesBack() {
        write(S, 3);
        // no push consumer: everything committed is published
        assertThat(repo.publishedThrough(S, 1)).isZero();
        Published first = repo.publish(S, 1);
        assertThat(first).isEqualTo(new Published(3, 3));
        assertThat(unpublished(S)).isEmpty();
        assertThat(repo.publishedThrough(S, 1)).isEqualTo(3);

        write(S, 2);
        assertThat(unpublished(S)).containsExactly(4L, 5L);
        Published second = repo.publish(S, 1);
        assertThat(second).isEqualTo(new Published(5, 2));
        assertThat(unpublished(S)).isEmpty();
        // nothing new: no batch row, the watermark stays
        assertThat(repo.publish(S, 1)).isEqualTo(new Published(5, 0));
        assertThat(batches(S)).containsExactly(3L, 5L);
    }

    @Test
    void aPushConsumerHoldsTheTargetAtWhatItHas() {
        write(PUSHED, 4);
        assertThat(post("/v1/retention/consumers", "c", """
                {"consumerId":"pusher","tenant":"acme","catalog":"pushed","epoch":1,
                 "deliveryUrl":"http://localhost:9/none"}""").status()).isLessThan(300);
        assertThat(put("/v1/retention/consumers/pusher/progress", "c", """
                {"tenant":"acme","catalog":"pushed","epoch":1,"position":1}""").status()).isEqualTo(200);
        assertThat(repo.publish(PUSHED, 1)).isEqualTo(new Published(1, 1));
        assertThat(unpublished(PUSHED)).containsExactly(2L, 3L, 4L);
        // nothing more is delivered: a second call marks nothing and keeps the target
        assertThat(repo.publish(PUSHED, 1)).isEqualTo(new Published(1, 0));
        // a push consumer registered behind the watermark holds the target lower; the watermark does not move back
        assertThat(put("/v1/retention/consumers/pusher/progress", "c", """
                {"tenant":"acme","catalog":"pushed","epoch":1,"position":3}""").status()).isEqualTo(200);
        assertThat(repo.publish(PUSHED, 1)).isEqualTo(new Published(3, 2));
        assertThat(post("/v1/retention/consumers", "c", """
                {"consumerId":"late","tenant":"acme","catalog":"pushed","epoch":1,
                 "deliveryUrl":"http://localhost:9/none"}""").status()).isLessThan(300);
        assertThat(repo.publish(PUSHED, 1)).isEqualTo(new Published(3, 0));
        assertThat(repo.publishedThrough(PUSHED, 1)).isEqualTo(3);
        assertThat(batches(PUSHED)).containsExactly(1L, 3L);
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
        return jdbc.sql("""
                SELECT position FROM outbox o
                 WHERE catalog = ? AND position > coalesce((SELECT max(through) FROM outbox_publish w
                                                             WHERE w.tenant = o.tenant AND w.catalog = o.catalog
                                                               AND w.epoch = o.epoch), 0)
                 ORDER BY 1""").params(s.catalog()).query(Long.class).list();
    }

    private List<Long> batches(StreamId s) {
        return jdbc.sql("SELECT through FROM outbox_publish WHERE tenant = ? AND catalog = ? ORDER BY 1")
                .params(s.tenant(), s.catalog()).query(Long.class).list();
    }
}
