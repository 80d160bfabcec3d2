package com.acme.catalog.resolver.outbox;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;

/** An HTTP consumer that records deliveries, and can be "down" (answering 503). */
final class FakeConsumer implements AutoCloseable {

    final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private volatile boolean down;
    private volatile long delayMillis;

    FakeConsumer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/inbox", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (delayMillis > 0) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            deliveries.add(new Delivery(System.nanoTime(), exchange.getRequestHeaders().getFirst("Authorization"),
                    body, down));
            byte[] answer = (down ? "{\"detail\":\"down\"}" : "{\"results\":[]}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(down ? 503 : 200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/inbox";
    }

    /** Makes every answer take this long (a slow consumer). */
    void delay(java.time.Duration d) {
        delayMillis = d.toMillis();
    }

    void down(boolean value) {
        down = value;
    }

    List<Delivery> accepted() {
        return deliveries.stream().filter(d -> !d.refused()).toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    record Delivery(long nanos, String authorization, String body, boolean refused) {
    }
}
