package com.acme.catalog.contracts.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Blocking HTTP/1.1 requests over the JDK's {@link HttpURLConnection}, whose process-wide keep-alive cache reuses
 * a connection per destination and thread. For the services' hot internal calls (relay deliveries, progress
 * reports): on this 2-core machine the JDK {@code HttpClient} spent about twice the CPU per request in its selector
 * and worker threads (docs/benchmarks.md, "Propagation"). A response body is always read to its end, so the
 * connection goes back to the cache; an I/O error closes it.
 */
public final class KeepAliveHttp {

    /** Status and body (UTF-8) of one answer. */
    public record Answer(int status, String body) {
        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private final int timeoutMillis;

    /** @param timeout connect timeout and read timeout (each) */
    public KeepAliveHttp(Duration timeout) {
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }

    /** Sends {@code body} (JSON) with {@code method}, bearer {@code token} when not blank. */
    public Answer send(String method, String url, String token, String body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(timeoutMillis);
        c.setReadTimeout(timeoutMillis);
        c.setUseCaches(false);
        c.setRequestMethod(method);
        c.setRequestProperty("Content-Type", "application/json");
        c.setRequestProperty("Accept", "application/json, application/problem+json");
        if (token != null && !token.isBlank()) {
            c.setRequestProperty("Authorization", "Bearer " + token);
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(bytes.length);
        try (OutputStream out = c.getOutputStream()) {
            out.write(bytes);
        }
        int status = c.getResponseCode();
        try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
            return new Answer(status, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
