package com.acme.catalog.floor;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import com.acme.catalog.floor.FloorApplication.FloorProperties;

import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * App a's listener: one thread with one connection that LISTENs, reads the rows after the last one delivered (up to
 * the relay's batch bounds), posts them to app b with the relay's token over the relay's HTTP client (JDK, HTTP/1.1)
 * and, on a 2xx, moves its in-memory position on. Nothing is durable: no claim, no progress, no retry schedule beyond
 * a fixed pause. (A row whose sequence number was taken before, but committed after, a later one can be passed over;
 * the floor accepts that, the services' cursor lock exists to prevent it.)
 */
@Component
// FLOOR_RELAY_ENABLED=false: app a alone, for write-only comparisons (bench scenario stream-writers)
@ConditionalOnExpression("'${floor.role}' == 'a' and ${floor.relay-enabled:true}")
class FloorRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(FloorRelay.class);

    private final DataSource dataSource;
    private final FloorProperties props;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private volatile boolean running;
    private Thread thread;

    FloorRelay(DataSource dataSource, FloorProperties props) {
        this.dataSource = dataSource;
        this.props = props;
    }

    @Override
    public void start() {
        running = true;
        thread = new Thread(this::run, "floor-relay");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() {
        running = false;
        thread.interrupt();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void run() {
        long last = 0;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN floor_events");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                try (PreparedStatement read = c.prepareStatement("""
                        SELECT position, stream, item_id, attributes::text FROM floor_event
                         WHERE position > ? ORDER BY position LIMIT ?""")) {
                    while (running) {
                        read.setLong(1, last);
                        read.setInt(2, props.batchEvents());
                        StringBuilder body = new StringBuilder("[");
                        long max = last;
                        try (ResultSet rs = read.executeQuery()) {
                            while (rs.next() && body.length() < props.batchBytes()) {
                                max = rs.getLong(1);
                                body.append(body.length() == 1 ? "" : ",").append("{\"position\":").append(max)
                                        .append(",\"stream\":\"").append(rs.getString(2)).append("\",\"itemId\":\"")
                                        .append(rs.getString(3)).append("\",\"attributes\":").append(rs.getString(4))
                                        .append('}');
                            }
                        }
                        if (max == last) {
                            pg.getNotifications(1000); // wakes on the next commit's NOTIFY, or after 1 s
                            continue;
                        }
                        HttpResponse<Void> res = http.send(HttpRequest.newBuilder(URI.create(props.inboxUrl()))
                                .timeout(Duration.ofSeconds(10))
                                .header("Authorization", "Bearer " + props.relayToken())
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body.append(']').toString(),
                                        StandardCharsets.UTF_8))
                                .build(), HttpResponse.BodyHandlers.discarding());
                        if (res.statusCode() / 100 == 2) {
                            last = max;
                        } else {
                            log.warn("floor inbox answered {}", res.statusCode());
                            Thread.sleep(200);
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (running) {
                    log.warn("floor relay: {}", e.toString());
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }
    }
}
