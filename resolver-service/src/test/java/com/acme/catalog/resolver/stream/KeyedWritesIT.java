package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Base of the idempotent-write tests: keyed requests sent with {@code java.net.http} (which never retries on its
 * own), and what the tests read from the stream's history.
 */
abstract class KeyedWritesIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    StreamWriter writer;
    @Autowired
    ObjectMapper json;
    @Autowired
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newHttpClient();

    long events(String catalog) {
        return jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = ?").param(catalog)
                .query(Long.class).single();
    }

    long transactions(String catalog) {
        return jdbc.sql("SELECT count(DISTINCT transaction_id) FROM outbox WHERE tenant = 'acme' AND catalog = ?")
                .param(catalog).query(Long.class).single();
    }

    long keys(String catalog) {
        return jdbc.sql("SELECT count(*) FROM idempotency_key WHERE tenant = 'acme' AND catalog = ?").param(catalog)
                .query(Long.class).single();
    }

    void assertGapless(String catalog) {
        List<Long> positions = jdbc.sql("SELECT position FROM outbox WHERE tenant = 'acme' AND catalog = ? "
                + "ORDER BY position").param(catalog).query(Long.class).list();
        for (int i = 0; i < positions.size(); i++) {
            assertThat(positions.get(i)).isEqualTo(i + 1L);
        }
    }

    /**
     * Waits until {@code n} writes of the stream wait behind the held cursor row: with coalescing, inside the
     * coalescer (queued, or in the group its leader is committing: a write that arrives before the leader has taken
     * its group joins it); without, each its own transaction waiting for the row lock in the database.
     */
    void awaitBlocked(String catalog, int n) throws InterruptedException {
        String database = jdbc.sql("SELECT current_database()").query(String.class).single();
        StreamId stream = new StreamId("acme", catalog);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            int pending = writer.pending(stream);
            // every write path locks the cursor with CursorRepository.SQL_LOCK_OPEN's text
            long locked = jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = ? "
                    + "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() "
                    + "AND query LIKE '%FOR UPDATE OF stream_cursor%'").param(database).query(Long.class).single();
            // coalesced: all n in the coalescer and its leader's transaction at the lock; else n at the lock
            if (pending >= 0 ? pending >= n && locked >= 1 : locked >= n) {
                return;
            }
            assertThat(System.nanoTime()).as("%d writes blocked: %d in the coalescer (-1: not coalesced), %d waiting "
                    + "for the lock", n, pending, locked).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * Sends with {@code java.net.http}, which never retries on its own (RestClient's Apache client re-sends a PUT
     * after a 503 with Retry-After).
     */
    Answer send(String method, String path, String token, String key, String body) throws Exception {
        return sendAsync(method, path, token, key, body).get(30, TimeUnit.SECONDS);
    }

    CompletableFuture<Answer> sendAsync(String method, String path, String token, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).thenApply(res -> new Answer(
                res.statusCode(), res.body() == null || res.body().isBlank() ? json.missingNode()
                        : json.readTree(res.body()), res.headers().firstValue("Content-Type").orElse(""),
                res.headers().firstValue("Retry-After").orElse(null), res.body()));
    }

    /** An HTTP answer: status, parsed body, content type, Retry-After and the raw text. */
    record Answer(int status, JsonNode body, String contentType, String retryAfter, String raw) {

        String code() {
            return body.path("code").isString() ? body.path("code").stringValue() : null;
        }

        long number(String field) {
            return body.path(field).asLong();
        }

        String text(String field) {
            JsonNode n = body.path(field);
            return n.isString() ? n.stringValue() : null;
        }
    }
}
