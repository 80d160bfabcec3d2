package com.acme.catalog.resolver.support;

import com.acme.catalog.testsupport.FreshDatabase;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

/**
 * Base of resolver integration tests: the whole service on a random port over its own fresh database, with
 * the outbox relay off unless a test enables it, and one token per role ({@code op}, {@code w}, {@code w-acme} limited to tenant acme, {@code r}, {@code c}).
 */
@FreshDatabase
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "security.tokens=op=operator;w=writer;w-acme=writer@acme;r=relay;c=consumer;c-acme=consumer@acme",
        // the relay would publish events on its own; tests that need it turn it on
        "relay.enabled=false"})
public abstract class ResolverIT {

    @LocalServerPort
    protected int port;

    /** A client that never throws on 4xx/5xx, so tests assert statuses themselves. */
    protected RestClient client(String token) {
        RestClient.Builder b = RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (token != null) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }
}
