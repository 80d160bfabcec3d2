package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.resolver.stream.CommitCutter.CuttingTransactionManager;
import com.acme.catalog.resolver.stream.CommitCutter.Fault;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/**
 * A write whose commit outcome the resolver cannot know (the commit's connection lost: {@link CommitCutter}) answers
 * 503 {@code OUTCOME_UNKNOWN} with {@code Retry-After: 1}, never 500, and its retry with the same key answers the
 * original result when the write was committed, or applies it when it was not: the history holds it exactly once.
 * Alone and in a coalesced group.
 */
@Import(CommitCutter.class)
@TestPropertySource(properties = {"resolver.write.coalescing.max-wait=5ms",
        "resolver.write.coalescing.wait-above-rate=0"})
class OutcomeUnknownIT extends KeyedWritesIT {

    private static final String BODY = """
            {"changes":[{"op":"upsertItem","itemId":"a","attributes":{"v":1}},
                        {"op":"upsertItem","itemId":"b","attributes":{"v":2}}]}""";

    @Autowired
    CuttingTransactionManager transactions;
    @Autowired
    MeterRegistry registry;

    @Test
    void aCommittedWriteWhoseAnswerWasLostIsAnsweredByItsRetry() throws Exception {
        int cutBefore = transactions.cut();
        double unknownBefore = unknownAnswers();
        transactions.arm(Fault.COMMITTED_THEN_LOST, 0);
        Answer lost = send("POST", "/v1/streams/acme/lost/transactions", "w", "k", BODY);
        assertOutcomeUnknown(lost);
        assertThat(unknownAnswers()).as("resolver_unavailable_answers_total{code=OUTCOME_UNKNOWN}")
                .isEqualTo(unknownBefore + 1);
        assertThat(transactions.cut()).as("the armed commit was cut").isEqualTo(cutBefore + 1);
        assertThat(transactions("lost")).as("it was committed").isEqualTo(1);
        String committedId = jdbc.sql("SELECT DISTINCT transaction_id::text FROM outbox WHERE tenant = 'acme' "
                + "AND catalog = 'lost'").query(String.class).single();

        Answer retry = send("POST", "/v1/streams/acme/lost/transactions", "w", "k", BODY);
        assertThat(retry.status()).as(retry.raw()).isEqualTo(200);
        assertThat(retry.text("transactionId")).isEqualTo(committedId);
        assertThat(retry.number("firstPosition")).isEqualTo(1);
        assertThat(retry.number("lastPosition")).isEqualTo(2);
        assertThat(transactions("lost")).as("exactly once").isEqualTo(1);
        assertThat(events("lost")).isEqualTo(2);
    }

    @Test
    void aWriteWhoseBackendWasTerminatedBeforeItsCommitIsAppliedByItsRetry() throws Exception {
        int cutBefore = transactions.cut();
        transactions.arm(Fault.TERMINATED_BEFORE_COMMIT, 0);
        Answer cut = send("POST", "/v1/streams/acme/cut/transactions", "w", "k", BODY);
        assertOutcomeUnknown(cut);
        assertThat(transactions.cut()).as("the armed commit was cut").isEqualTo(cutBefore + 1);
        assertThat(events("cut")).as("it was not committed").isZero();

        Answer retry = send("POST", "/v1/streams/acme/cut/transactions", "w", "k", BODY);
        assertThat(retry.status()).as(retry.raw()).isEqualTo(200);
        assertThat(retry.number("firstPosition")).as("the cut write took no position").isEqualTo(1);
        Answer again = send("POST", "/v1/streams/acme/cut/transactions", "w", "k", BODY);
        assertThat(again.body()).isEqualTo(retry.body());
        assertThat(transactions("cut")).as("exactly once").isEqualTo(1);
        assertThat(events("cut")).isEqualTo(2);
    }

    /** Three keyed writes share a physical transaction whose commit is lost: each retry answers its own result. */
    @Test
    void everyWriteOfACoalescedGroupWhoseCommitIsLostLearnsItsOutcomeByItsRetry() throws Exception {
        int cutBefore = transactions.cut();
        assertThat(send("PUT", "/v1/streams/acme/group/items/seed", "w", null, "{\"attributes\":{}}").status())
                .isEqualTo(200);
        List<CompletableFuture<Answer>> group = new ArrayList<>();
        CompletableFuture<Answer> lead;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'group' FOR UPDATE");
            }
            lead = sendAsync("PUT", "/v1/streams/acme/group/items/lead", "w", null, "{\"attributes\":{}}");
            awaitBlocked("group", 1);
            for (int i = 0; i < 3; i++) {
                group.add(sendAsync("POST", "/v1/streams/acme/group/transactions", "w", "g-" + i,
                        BODY.replace("\"a\"", "\"a" + i + "\"")));
            }
            awaitBlocked("group", 4);
            transactions.arm(Fault.COMMITTED_THEN_LOST, 1); // the lead's commit goes through, the group's is lost
            holder.rollback();
        }
        assertThat(lead.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        for (CompletableFuture<Answer> f : group) {
            assertOutcomeUnknown(f.get(30, TimeUnit.SECONDS));
        }
        assertThat(transactions.cut()).as("the armed commit was cut").isEqualTo(cutBefore + 1);
        long before = events("group");
        for (int i = 0; i < 3; i++) {
            Answer retry = send("POST", "/v1/streams/acme/group/transactions", "w", "g-" + i,
                    BODY.replace("\"a\"", "\"a" + i + "\""));
            assertThat(retry.status()).as(retry.raw()).isEqualTo(200);
            assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'group' "
                    + "AND transaction_id = ?::uuid AND aggregate_id = ?").params(retry.text("transactionId"),
                    "a" + i).query(Long.class).single()).as("write %d is the committed one", i).isEqualTo(1);
        }
        assertThat(events("group")).as("the retries wrote nothing").isEqualTo(before);
        assertThat(transactions("group")).as("seed, lead, three writes once each").isEqualTo(5);
        assertGapless("group");
    }

    /** What an operator's dashboard shows of these answers (docs/metrics.md). */
    private double unknownAnswers() {
        return registry.get("resolver.unavailable.answers").tag("code", "OUTCOME_UNKNOWN").counter().count();
    }

    private static void assertOutcomeUnknown(Answer a) {
        assertThat(a.status()).as(a.raw()).isEqualTo(503);
        assertThat(a.code()).isEqualTo("OUTCOME_UNKNOWN");
        assertThat(a.retryAfter()).isEqualTo("1");
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.raw()).doesNotContain("I/O error").doesNotContain("terminating connection");
    }
}
