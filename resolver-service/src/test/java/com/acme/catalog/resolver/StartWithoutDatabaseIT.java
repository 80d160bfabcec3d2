package com.acme.catalog.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import com.acme.catalog.testsupport.CuttableProxy;
import com.acme.catalog.testsupport.ShuttingDownPostgres;
import com.acme.catalog.testsupport.TestDatabase;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The resolver started while its database does not accept connections yet (a port where nothing listens: the
 * server is down) or that answers {@code 57P03} (shutting down: a restart) waits for it, then migrates and serves;
 * one whose database never comes fails the start after {@code database.start.timeout} with a message naming it.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartWithoutDatabaseIT {

    private TestDatabase db;
    private TestDatabase control;
    private CuttableProxy proxy;

    @BeforeEach
    void databaseBehindACutProxy() throws Exception {
        db = TestDatabase.create("startwait");
        control = TestDatabase.create("startwait_control");
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        proxy = new CuttableProxy(server.getHost(), server.getPort());
        proxy.cut(); // nothing listens on its port
    }

    @AfterEach
    void drop() throws Exception {
        proxy.close();
        db.close();
        control.close();
    }

    @Test
    void startsOnceTheDatabaseAppearsAndMigratesIt(CapturedOutput output) throws Exception {
        // the database appears only once the service has been refused twice
        CompletableFuture<Void> appears = once(() -> output.getOut().contains("not accepting connections (attempt 2,"),
                proxy::mend);
        try (ConfigurableApplicationContext ctx = start("PT1M")) {
            appears.get();
            assertThat(output.getOut()).contains("SQLState 08001").containsPattern("accepts connections after [3-9]");
            assertServesMigrated(ctx);
        }
    }

    @Test
    void startsOnceADatabaseThatWasShuttingDownIsBack(CapturedOutput output) throws Exception {
        ShuttingDownPostgres restarting = new ShuttingDownPostgres(proxy.port());
        // back once the service has been told twice that the database is shutting down
        CompletableFuture<Void> back = once(() -> restarting.refused() >= 2, () -> {
            restarting.close();
            proxy.mend();
        });
        try (ConfigurableApplicationContext ctx = start("PT1M")) {
            back.get();
            assertThat(output.getOut()).contains("SQLState 57P03: FATAL: the database system is shutting down");
            assertServesMigrated(ctx);
        } finally {
            restarting.close();
        }
    }

    @Test
    void givesUpAfterTheBoundWithAMessageNamingTheDatabase() {
        long started = System.nanoTime();
        assertThatThrownBy(() -> start("PT2S").close()).hasStackTraceContaining("database jdbc:postgresql://127.0.0.1:"
                + proxy.port() + "/" + db.name() + " did not accept connections within PT2S")
                .hasStackTraceContaining("SQLState 08001").hasStackTraceContaining("database.start.timeout");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(1500);
    }

    private void assertServesMigrated(ConfigurableApplicationContext ctx) throws Exception {
        String port = ctx.getEnvironment().getProperty("local.server.port");
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        try (Connection c = db.connect();
                ResultSet rs = c.createStatement().executeQuery("SELECT to_regclass('resolver.outbox')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("Flyway ran once the database was back").isNotNull();
        }
    }

    /** Runs {@code action} on another thread as soon as {@code condition} holds (within a minute). */
    private static CompletableFuture<Void> once(BooleanSupplier condition, Step action) {
        return CompletableFuture.runAsync(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                while (!condition.getAsBoolean()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("condition not met within a minute");
                    }
                    Thread.sleep(50);
                }
                action.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private interface Step {
        void run() throws Exception;
    }

    private ConfigurableApplicationContext start(String timeout) {
        return new SpringApplicationBuilder(ResolverApplication.class).run(
                "--server.port=0", "--relay.enabled=false", "--retention.prune.enabled=false",
                "--database.start.timeout=" + timeout, "--database.start.retry-interval=PT0.5S",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db.name(),
                "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + (db.password() == null ? "" : db.password()),
                "--control.datasource.url=" + control.jdbcUrl(),
                "--control.datasource.username=" + control.username(),
                "--control.datasource.password=" + (control.password() == null ? "" : control.password()));
    }
}
