package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.support.PublishMarks;
import com.acme.catalog.resolver.support.ResolverIT;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.ObjectMapper;

/**
 * Retention ITs: the scheduled pruner and status refresh are off and min-age is 0 unless a class says otherwise,
 * so each test decides when pruning happens. The publish watermark ({@code outbox_publish}) belongs to the relay; tests set it with SQL.
 */
@TestPropertySource(properties = {"retention.prune.enabled=false", "retention.status.enabled=false",
        "retention.min-age=PT0S"})
abstract class AbstractRetentionIT extends ResolverIT {

    @Autowired
    protected StreamWriter writer;
    @Autowired
    protected JdbcClient jdbc;
    @Autowired
    protected ObjectMapper json;
    @Autowired
    protected RetentionService retention;
    @Autowired
    protected OutboxPruner pruner;

    /** Commits {@code n} single-event logical transactions in one physical commit; returns the last position. */
    protected long write(StreamId s, int n) {
        List<List<Change>> txs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            txs.add(List.of(ChangeParser.upsertItem("sku-" + (i % 13), json.readTree("{\"attributes\":{\"n\":" + i + "}}"))));
        }
        var results = writer.writeAll(s, txs);
        return results.get(results.size() - 1).lastPosition();
    }

    /** What the relay will do: publishes events through {@code position} {@code age} ago ({@link PublishMarks}). */
    protected void publishThrough(StreamId s, long position, Duration age) {
        PublishMarks.publishThrough(jdbc, s, position, age);
    }

    protected void publishThrough(StreamId s, long position) {
        publishThrough(s, position, Duration.ZERO);
    }

    protected long prunedThroughInDb(StreamId s) {
        return jdbc.sql("SELECT coalesce(max(pruned_through), 0) FROM stream_retention WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    protected List<Long> outboxPositions(StreamId s) {
        return jdbc.sql("SELECT position FROM outbox WHERE tenant = ? AND catalog = ? ORDER BY position")
                .params(s.tenant(), s.catalog()).query(Long.class).list();
    }

    protected long prune(StreamId s) {
        return pruner.pruneAll(s.tenant(), s.catalog()).stream().mapToLong(OutboxPruner.PruneOutcome::pruned).sum();
    }

    /** Every row retention owns plus the outbox size: equal before and after a refused request. */
    protected String fingerprint() {
        StringBuilder b = new StringBuilder();
        for (String q : List.of(
                "SELECT tenant, catalog, epoch, pruned_through FROM stream_retention ORDER BY 1, 2, 3",
                "SELECT consumer_id, tenant, catalog, epoch, durable_position, delivery_url, registered_by, "
                        + "registered_at FROM retention_consumer ORDER BY 1, 2, 3",
                "SELECT lease_id, pin, owner, expires_at, released_at FROM retention_lease ORDER BY 1",
                "SELECT tenant, catalog, count(*) FROM outbox GROUP BY 1, 2 ORDER BY 1, 2",
                "SELECT tenant, catalog, epoch, position, fenced_at FROM stream_cursor ORDER BY 1, 2, 3")) {
            b.append(jdbc.sql(q).query().listOfRows()).append('\n');
        }
        return b.toString();
    }

    protected Response register(String token, String consumerId, StreamId s, long epoch) {
        return post("/v1/retention/consumers", token,
                Map.of("consumerId", consumerId, "tenant", s.tenant(), "catalog", s.catalog(), "epoch", epoch));
    }

    protected Response progress(String token, String consumerId, StreamId s, long epoch, long position) {
        return put("/v1/retention/consumers/" + consumerId + "/progress", token,
                Map.of("tenant", s.tenant(), "catalog", s.catalog(), "epoch", epoch, "position", position));
    }

    protected Response lease(String token, StreamId s, long epoch, long ttlSeconds) {
        return post("/v1/retention/leases", token, Map.of("tenant", s.tenant(), "catalog", s.catalog(),
                "epoch", epoch, "ttlSeconds", ttlSeconds, "owner", "test rebuild"));
    }
}
