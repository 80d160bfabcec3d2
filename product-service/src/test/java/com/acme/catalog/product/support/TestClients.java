package com.acme.catalog.product.support;

import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

/** Clients of the product a test started: they never throw on 4xx/5xx, so tests assert statuses themselves. */
public final class TestClients {

    private TestClients() {
    }

    /** @return a client of {@code localhost:port}, with bearer {@code token} unless it is null or empty */
    public static RestClient of(int port, String token) {
        RestClient.Builder b = RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (token != null && !token.isEmpty()) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }
}
