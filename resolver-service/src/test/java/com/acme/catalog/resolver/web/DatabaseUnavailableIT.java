package com.acme.catalog.resolver.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A write whose database connection is cut (the fault suite's finding): 503 {@code DATABASE_UNAVAILABLE} with
 * {@code Retry-After}, as problem+json, and nothing written; the next write gets the position the cut one did not
 * consume.
 */
class DatabaseUnavailableIT extends ResolverIT {

    @Autowired
    JdbcClient jdbc;
    @Autowired
    DataSource dataSource;

    @Test
    void aWriteWhoseBackendIsTerminatedAnswers503DatabaseUnavailableAndWritesNothing() throws Exception {
        assertThat(put("/v1/streams/acme/cut/items/seed", "w", "{\"attributes\":{}}").status()).isEqualTo(200);
        String database = jdbc.sql("SELECT current_database()").query(String.class).single();
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT position FROM stream_cursor WHERE tenant = 'acme' AND catalog = 'cut' FOR UPDATE");
            }
            // the write waits for the cursor row: its backend is the one waiting on a lock in this database
            // java.net.http, which never retries: RestClient's Apache client would re-send the PUT on its own after
            // a 503 with Retry-After (an idempotent method), and the retry would wait for the held row
            CompletableFuture<HttpResponse<String>> blocked = HttpClient.newHttpClient().sendAsync(HttpRequest
                    .newBuilder(URI.create("http://localhost:" + port + "/v1/streams/acme/cut/items/x"))
                    .header("Authorization", "Bearer w").header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"attributes\":{\"v\":1}}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            Integer victim = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (victim == null && System.nanoTime() < deadline) {
                victim = jdbc.sql("""
                        SELECT pid FROM pg_stat_activity
                         WHERE datname = ? AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                         LIMIT 1
                        """).param(database).query(Integer.class).optional().orElse(null);
                Thread.sleep(50);
            }
            assertThat(victim).as("the write's backend, waiting for the cursor row").isNotNull();
            assertThat(jdbc.sql("SELECT pg_terminate_backend(?)").param(victim).query(Boolean.class).single())
                    .isTrue();

            HttpResponse<String> res = blocked.get(30, TimeUnit.SECONDS);
            assertThat(res.statusCode()).as("%s", res.body()).isEqualTo(503);
            assertThat(res.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(res.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(res.body()).contains("\"code\":\"DATABASE_UNAVAILABLE\"").contains("\"status\":503")
                    .doesNotContain("terminating connection");
            holder.rollback();
        }

        assertThat(jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'cut'")
                .query(Long.class).single()).as("nothing written").isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = 'cut' "
                + "AND aggregate_type = 'item' AND aggregate_id = 'x'").query(Long.class).single()).isZero();
        Response next = put("/v1/streams/acme/cut/items/x", "w", "{\"attributes\":{\"v\":2}}");
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.number("position")).as("the cut write consumed no position").isEqualTo(2);
        assertThat(next.number("revision")).isEqualTo(1);
    }
}
