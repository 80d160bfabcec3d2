package com.acme.catalog.resolver.support;

import java.time.Duration;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;

/** What the relay's publisher does, for tests that decide themselves when events count as published. */
public final class PublishMarks {

    private PublishMarks() {
    }

    /**
     * Publishes events through {@code position} (in every epoch of the stream, not beyond its cursor) {@code age}
     * ago (database time), as one batch above each epoch's watermark; a no-op where the watermark is there already.
     */
    public static void publishThrough(JdbcClient jdbc, StreamId s, long position, Duration age) {
        jdbc.sql("""
                INSERT INTO outbox_publish (tenant, catalog, epoch, through, published_at)
                SELECT c.tenant, c.catalog, c.epoch, LEAST(?, c.position), now() - make_interval(secs => ?)
                  FROM stream_cursor c
                 WHERE c.tenant = ? AND c.catalog = ?
                   AND LEAST(?, c.position) > coalesce((SELECT max(w.through) FROM outbox_publish w
                                                         WHERE w.tenant = c.tenant AND w.catalog = c.catalog
                                                           AND w.epoch = c.epoch), 0)
                ON CONFLICT DO NOTHING
                """).params(position, age.toSeconds(), s.tenant(), s.catalog(), position).update();
    }
}
