package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Idempotent writes through REST, run once with write coalescing on and once off: a retry with the
 * same key and body answers the original result and writes nothing; the same key with another body is 422 and
 * writes nothing; concurrent writes with one key apply once; a group holding keyed writes of every kind answers
 * each as it would alone; keys are per token identity; the pruner deletes keys older than the window (in batches,
 * counted), after which the key applies anew; a malformed key is 400 before anything is written.
 */
@TestPropertySource(properties = {"resolver.idempotency.prune-interval=PT0.2S",
        "resolver.idempotency.batch-size=2"})
abstract class AbstractIdempotentWriteIT extends KeyedWritesIT {

    private static final String TX_BODY = """
            {"changes":[{"op":"upsertItem","itemId":"a","attributes":{"v":1}},
                        {"op":"upsertItem","itemId":"b","attributes":{"v":2}}]}""";

    @Test
    void aRetryWithTheSameKeyAndBodyAnswersTheOriginalResultAndWritesNothing() throws Exception {
        Answer first = send("POST", "/v1/streams/acme/retry/transactions", "w", "k-1", TX_BODY);
        assertThat(first.status()).as(first.raw()).isEqualTo(200);
        long events = events("retry");

        Answer again = send("POST", "/v1/streams/acme/retry/transactions", "w", "k-1", TX_BODY);
        assertThat(again.status()).as(again.raw()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(events("retry")).as("nothing written").isEqualTo(events);

        // whitespace does not matter: the body as parsed is what counts
        Answer reformatted = send("POST", "/v1/streams/acme/retry/transactions", "w", "k-1",
                json.writeValueAsString(json.readTree(TX_BODY)));
        assertThat(reformatted.body()).isEqualTo(first.body());

        Answer put = send("PUT", "/v1/streams/acme/retry/items/c", "w", "k-2", "{\"attributes\":{\"v\":3}}");
        Answer putAgain = send("PUT", "/v1/streams/acme/retry/items/c", "w", "k-2", "{\"attributes\":{\"v\":3}}");
        assertThat(putAgain.status()).isEqualTo(200);
        assertThat(putAgain.body()).isEqualTo(put.body());
        Answer deleted = send("DELETE", "/v1/streams/acme/retry/items/c?expectedRevision=1", "w", "k-3", null);
        Answer deletedAgain = send("DELETE", "/v1/streams/acme/retry/items/c?expectedRevision=1", "w", "k-3", null);
        assertThat(deleted.status()).as(deleted.raw()).isEqualTo(200);
        assertThat(deletedAgain.status()).as("a replay, not a second delete (404)").isEqualTo(200);
        assertThat(deletedAgain.body()).isEqualTo(deleted.body());
        assertThat(events("retry")).isEqualTo(events + 2);
        assertThat(transactions("retry")).isEqualTo(3);
    }

    @Test
    void theSameKeyWithAnotherRequestIs422AndWritesNothing() throws Exception {
        assertThat(send("POST", "/v1/streams/acme/reuse/transactions", "w", "k", TX_BODY).status()).isEqualTo(200);
        long events = events("reuse");
        String other = TX_BODY.replace("\"v\":2", "\"v\":9");
        Answer reused = send("POST", "/v1/streams/acme/reuse/transactions", "w", "k", other);
        assertThat(reused.status()).as(reused.raw()).isEqualTo(422);
        assertThat(reused.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(reused.contentType()).startsWith("application/problem+json");
        // another path or method with the key is another request too
        assertThat(send("PUT", "/v1/streams/acme/reuse/items/a", "w", "k", "{\"attributes\":{\"v\":1}}").code())
                .isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(events("reuse")).as("nothing written").isEqualTo(events);
        assertThat(jdbc.sql("SELECT attributes->>'v' FROM item WHERE tenant = 'acme' AND catalog = 'reuse' "
                + "AND item_id = 'b'").query(String.class).single()).isEqualTo("2");
    }

    @Test
    void keysArePerTokenIdentityAndPerStream() throws Exception {
        Answer mine = send("POST", "/v1/streams/acme/ident/transactions", "w", "shared", TX_BODY);
        Answer theirs = send("POST", "/v1/streams/acme/ident/transactions", "w-acme", "shared", TX_BODY);
        Answer otherStream = send("POST", "/v1/streams/acme/ident-2/transactions", "w", "shared", TX_BODY);
        assertThat(List.of(mine.status(), theirs.status(), otherStream.status())).containsOnly(200);
        assertThat(theirs.text("transactionId")).isNotEqualTo(mine.text("transactionId"));
        assertThat(otherStream.text("transactionId")).isNotEqualTo(mine.text("transactionId"));
        assertThat(transactions("ident")).isEqualTo(2);
    }

    @Test
    void aMalformedKeyIs400AndWritesNothing() throws Exception {
        for (String bad : List.of("", "x".repeat(129))) {
            Answer a = send("POST", "/v1/streams/acme/badkey/transactions", "w", bad, TX_BODY);
            assertThat(a.status()).as("key of %d characters: %s", bad.length(), a.raw()).isEqualTo(400);
            assertThat(a.code()).isEqualTo("INVALID_IDEMPOTENCY_KEY");
        }
        assertThat(send("POST", "/v1/streams/acme/badkey/transactions", "w", "x".repeat(128), TX_BODY).status())
                .isEqualTo(200);
        assertThat(transactions("badkey")).isEqualTo(1);
    }

    /**
     * Six writes with one key wait behind the held cursor row; released, exactly one applies and all six answer its
     * result. Coalesced they share a physical transaction (the key is applied once within the group, without a
     * failed attempt: fails without {@code KeyPlan}'s handling of a key repeated in a group, checked by hand); alone,
     * each finds the key the first one stored once it has the lock.
     */
    @Test
    void concurrentWritesWithOneKeyApplyOnce() throws Exception {
        assertThat(send("PUT", "/v1/streams/acme/race/items/seed", "w", null, "{\"attributes\":{}}").status())
                .isEqualTo(200);
        double retriesBefore = retries();
        List<CompletableFuture<Answer>> racers = new ArrayList<>();
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'race' FOR UPDATE");
            }
            racers.add(sendAsync("PUT", "/v1/streams/acme/race/items/lead", "w", null, "{\"attributes\":{}}"));
            awaitBlocked("race", 1);
            for (int i = 0; i < 6; i++) {
                racers.add(sendAsync("POST", "/v1/streams/acme/race/transactions", "w", "once", TX_BODY));
            }
            awaitBlocked("race", 7);
            holder.rollback();
        }
        List<Answer> answers = new ArrayList<>();
        for (CompletableFuture<Answer> f : racers) {
            answers.add(f.get(30, TimeUnit.SECONDS));
        }
        for (Answer a : answers) {
            assertThat(a.status()).as(a.raw()).isEqualTo(200);
        }
        List<JsonNode> keyed = answers.subList(1, 7).stream().map(Answer::body).distinct().toList();
        assertThat(keyed).as("one result for all six").hasSize(1);
        assertThat(transactions("race")).as("seed, lead and the keyed write once").isEqualTo(3);
        assertThat(events("race")).isEqualTo(4);
        // coalesced, the six share one physical transaction and the key is applied once inside it: no failed
        // attempt (the key's primary key refusing a second row) and no retry of the group one by one
        assertThat(retries() - retriesBefore).as("physical transactions retried").isZero();
        if (coalesced()) {
            assertThat(registry.get("resolver.write.coalesced.transactions").summary().max())
                    .as("the six in one physical transaction").isGreaterThanOrEqualTo(6);
        }
    }

    /** Whether this run coalesces writes. */
    abstract boolean coalesced();

    private double retries() {
        return registry.get("resolver.write.retries").counter().count();
    }

    /**
     * One group of writes of every kind behind the held cursor row: a new key, its duplicate, a retry of a key
     * committed before, that key with another body, an unkeyed write. Each answers what it would alone.
     */
    @Test
    void keyedWritesOfEveryKindInOneGroupAnswerAsAlone() throws Exception {
        Answer committed = send("POST", "/v1/streams/acme/mixed/transactions", "w", "old", TX_BODY);
        assertThat(committed.status()).isEqualTo(200);
        String other = TX_BODY.replace("\"v\":2", "\"v\":9");
        String fresh = "{\"changes\":[{\"op\":\"upsertItem\",\"itemId\":\"f\",\"attributes\":{}}]}";
        CompletableFuture<Answer> lead;
        CompletableFuture<Answer> newKey;
        CompletableFuture<Answer> duplicate;
        CompletableFuture<Answer> retry;
        CompletableFuture<Answer> reused;
        CompletableFuture<Answer> unkeyed;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'mixed' FOR UPDATE");
            }
            lead = sendAsync("PUT", "/v1/streams/acme/mixed/items/lead", "w", null, "{\"attributes\":{}}");
            awaitBlocked("mixed", 1);
            newKey = sendAsync("POST", "/v1/streams/acme/mixed/transactions", "w", "new", fresh);
            awaitBlocked("mixed", 2);
            duplicate = sendAsync("POST", "/v1/streams/acme/mixed/transactions", "w", "new", fresh);
            retry = sendAsync("POST", "/v1/streams/acme/mixed/transactions", "w", "old", TX_BODY);
            reused = sendAsync("POST", "/v1/streams/acme/mixed/transactions", "w", "old", other);
            unkeyed = sendAsync("PUT", "/v1/streams/acme/mixed/items/u", "w", null, "{\"attributes\":{}}");
            awaitBlocked("mixed", 6);
            holder.rollback();
        }
        assertThat(lead.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        Answer n = newKey.get(30, TimeUnit.SECONDS);
        assertThat(n.status()).as(n.raw()).isEqualTo(200);
        assertThat(duplicate.get(30, TimeUnit.SECONDS).body()).isEqualTo(n.body());
        Answer r = retry.get(30, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(committed.body());
        Answer refused = reused.get(30, TimeUnit.SECONDS);
        assertThat(refused.status()).as(refused.raw()).isEqualTo(422);
        assertThat(refused.code()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(unkeyed.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(transactions("mixed")).as("old, lead, new once, unkeyed").isEqualTo(4);
        assertThat(events("mixed")).isEqualTo(5);
        assertGapless("mixed");
    }

    /**
     * Keys older than the window are deleted by the background pruner, two per batch, and counted; then the same
     * key applies anew. A key inside the window stays.
     */
    @Test
    void thePrunerDeletesKeysOlderThanTheWindowThenTheKeyAppliesAnew() throws Exception {
        Answer first = send("POST", "/v1/streams/acme/expiry/transactions", "w", "old-0", TX_BODY);
        for (int i = 1; i < 5; i++) {
            assertThat(send("PUT", "/v1/streams/acme/expiry/items/x" + i, "w", "old-" + i, "{\"attributes\":{}}")
                    .status()).isEqualTo(200);
        }
        assertThat(send("PUT", "/v1/streams/acme/expiry/items/y", "w", "young", "{\"attributes\":{}}").status())
                .isEqualTo(200);
        double prunedBefore = registry.get("resolver.idempotency.keys.pruned").counter().count();
        jdbc.sql("UPDATE idempotency_key SET created_at = now() - interval '24 hours 1 minute' "
                + "WHERE catalog = 'expiry' AND idempotency_key LIKE 'old-%'").update();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (keys("expiry") > 1) {
            assertThat(System.nanoTime()).as("the pruner deletes the old keys").isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(jdbc.sql("SELECT idempotency_key FROM idempotency_key WHERE catalog = 'expiry'")
                .query(String.class).list()).containsExactly("young");
        assertThat(registry.get("resolver.idempotency.keys.pruned").counter().count() - prunedBefore)
                .isGreaterThanOrEqualTo(5);

        Answer anew = send("POST", "/v1/streams/acme/expiry/transactions", "w", "old-0", TX_BODY);
        assertThat(anew.status()).isEqualTo(200);
        assertThat(anew.text("transactionId")).isNotEqualTo(first.text("transactionId"));
        assertThat(anew.number("firstPosition")).isGreaterThan(first.number("lastPosition"));
        Answer young = send("PUT", "/v1/streams/acme/expiry/items/y", "w", "young", "{\"attributes\":{}}");
        assertThat(young.number("revision")).as("still a replay").isEqualTo(1);
    }
}
