package com.acme.catalog.resolver.epoch;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.acme.catalog.resolver.ResolverApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Another resolver instance in this JVM, on the same resolver database and control store as the test's: a second
 * node that rotates an epoch while the test's instance still holds the old one.
 */
final class SecondInstance implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final int port;
    private final HttpClient http = HttpClient.newHttpClient();

    SecondInstance(Environment first) {
        context = new SpringApplicationBuilder(ResolverApplication.class).run(
                "--server.port=0", "--relay.enabled=false", "--retention.prune.enabled=false",
                "--security.tokens=" + first.getProperty("security.tokens"),
                "--spring.datasource.url=" + first.getProperty("spring.datasource.url"),
                "--spring.datasource.username=" + first.getProperty("spring.datasource.username"),
                "--spring.datasource.password=" + first.getProperty("spring.datasource.password", ""),
                "--control.datasource.url=" + first.getProperty("control.datasource.url"),
                "--control.datasource.username=" + first.getProperty("control.datasource.username"),
                "--control.datasource.password=" + first.getProperty("control.datasource.password", ""));
        port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    /** POSTs a JSON body with the operator token and answers the status code. */
    int post(String path, String json) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Authorization", "Bearer op").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }

    /** GETs with the operator token and answers the body. */
    String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Authorization", "Bearer op").GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * Maintenance on, a fleet rotation of the tenant's streams (driven by this instance, the job created here), its
     * end awaited, maintenance off.
     */
    void fleetRotate(String tenant) throws Exception {
        require(post("/v1/admin/maintenance", "{\"enabled\":true}"));
        HttpResponse<String> started = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/v1/epochs/rotations")).header("Authorization", "Bearer op")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"reason\":\"rotated elsewhere\",\"scope\":{\"tenant\":\"" + tenant + "\"}}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (started.statusCode() != 202) {
            throw new IllegalStateException("the second instance answered " + started.statusCode());
        }
        String id = started.body().replaceAll(".*\"rotationId\":\"([^\"]+)\".*", "$1");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (get("/v1/epochs/rotations/" + id).contains("\"status\":\"RUNNING\"")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("fleet rotation " + id + " still running after 60 s");
            }
            Thread.sleep(100);
        }
        require(post("/v1/admin/maintenance", "{\"enabled\":false}"));
    }

    /** Maintenance on, rotation, maintenance off: what an operator does on this instance. */
    void rotate(String tenant, String catalog) throws Exception {
        require(post("/v1/admin/maintenance", "{\"enabled\":true}"));
        require(post("/v1/epochs/" + tenant + "/" + catalog + "/rotate", "{\"reason\":\"rotated elsewhere\"}"));
        require(post("/v1/admin/maintenance", "{\"enabled\":false}"));
    }

    private static void require(int status) {
        if (status != 200) {
            throw new IllegalStateException("the second instance answered " + status);
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
