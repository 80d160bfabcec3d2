package com.acme.catalog.resolver.outbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;

import com.acme.catalog.platform.concurrent.DaemonThreads;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one dedicated connection that LISTENs on {@value #CHANNEL} (notified by every cursor advance, delivered by
 * PostgreSQL at commit, with the payload {@code tenant/catalog/epoch}) and hands the payloads to the relay, on a
 * daemon thread of its own ({@code relay-listener}); an empty set means "anything may have been committed" (after a
 * (re)connect). Notifications may be lost across reconnects; the relay's poll is the safety net.
 */
final class CommitListener {

    static final String CHANNEL = RelayWakeUp.CHANNEL;
    private static final Logger log = LoggerFactory.getLogger(CommitListener.class);

    private final String url;
    private final Properties credentials;
    private volatile boolean running;

    CommitListener(String url, String user, String password) {
        this.url = url;
        this.credentials = new Properties();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
    }

    /** Starts listening, handing each set of payloads to {@code wake}, until {@link #stop}. */
    void start(Consumer<Set<String>> wake) {
        running = true;
        DaemonThreads.newThread(() -> listen(wake), "relay-listener").start();
    }

    private void listen(Consumer<Set<String>> wake) {
        while (running) {
            try (Connection c = DriverManager.getConnection(url, credentials)) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                wake.accept(Set.of()); // anything committed while we were not listening
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notes = pg.getNotifications(500);
                    if (notes != null && notes.length > 0) {
                        Set<String> payloads = new HashSet<>();
                        for (PGNotification n : notes) {
                            payloads.add(n.getParameter());
                        }
                        wake.accept(payloads);
                    }
                }
            } catch (SQLException e) {
                if (running) {
                    log.warn("relay commit listener lost its connection ({}); reconnecting", e.getMessage());
                    sleep(1000);
                }
            }
        }
    }

    /** Stops listening within half a second (the wait for notifications); the connection is then closed. */
    void stop() {
        running = false;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
