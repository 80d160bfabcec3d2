package com.acme.catalog.product.progress;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/** {@code PUT {RESOLVER_URL}/v1/retention/consumers/{consumerId}/progress} with bearer {@code RESOLVER_TOKEN}. */
@Component
class ResolverProgressClient {

    private final RestClient rest;
    private final String consumerId;

    ResolverProgressClient(@Value("${product.resolver-url}") String resolverUrl,
            @Value("${product.resolver-token:}") String token, @Value("${product.consumer-id}") String consumerId,
            @Value("${product.progress.request-timeout-ms:5000}") long timeoutMs) {
        // HTTP/1.1: the default would offer an h2c upgrade on every new connection to the plain-http resolver
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(timeoutMs)).build();
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(http);
        factory.setReadTimeout(Duration.ofMillis(timeoutMs));
        RestClient.Builder b = RestClient.builder().baseUrl(resolverUrl).requestFactory(factory);
        if (!token.isBlank()) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        this.rest = b.build();
        this.consumerId = consumerId;
    }

    /** Reports durable progress; throws on any failure, including a non-2xx answer. */
    void report(StreamId stream, long epoch, long position) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenant", stream.tenant());
        body.put("catalog", stream.catalog());
        body.put("epoch", epoch);
        body.put("position", position);
        rest.put().uri("/v1/retention/consumers/{consumerId}/progress", consumerId)
                .contentType(MediaType.APPLICATION_JSON).body(body).retrieve().toBodilessEntity();
    }
}
