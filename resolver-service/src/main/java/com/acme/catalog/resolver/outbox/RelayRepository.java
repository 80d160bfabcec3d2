package com.acme.catalog.resolver.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Delivery cursors, claims and the published mark. All expiry and backoff decisions use database time. */
@Repository
class RelayRepository {

    /** Push consumers behind their stream's head whose backoff has passed and whom nobody else holds. */
    private static final String SQL_DUE = """
            SELECT c.consumer_id, c.tenant, c.catalog, c.epoch, c.delivery_url,
                   GREATEST(coalesce(d.delivered_through, 0), c.durable_position) AS delivered, cur.position AS head
              FROM retention_consumer c
              JOIN stream_cursor cur ON cur.tenant = c.tenant AND cur.catalog = c.catalog AND cur.epoch = c.epoch
                                    AND cur.fenced_at IS NULL
              LEFT JOIN relay_delivery d ON d.consumer_id = c.consumer_id AND d.tenant = c.tenant
                                        AND d.catalog = c.catalog AND d.epoch = c.epoch
             WHERE c.delivery_url IS NOT NULL
               AND cur.position > GREATEST(coalesce(d.delivered_through, 0), c.durable_position)
               AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= clock_timestamp())
               AND (d.claim_until IS NULL OR d.claim_until < clock_timestamp() OR d.claimed_by = ?)
             ORDER BY c.tenant, c.catalog, c.consumer_id
             LIMIT ?
            """;
    private static final String SQL_CLAIM = """
            INSERT INTO relay_delivery (consumer_id, tenant, catalog, epoch, claimed_by, claim_until)
            VALUES (?, ?, ?, ?, ?, clock_timestamp() + make_interval(secs => ?))
            ON CONFLICT (consumer_id, tenant, catalog, epoch) DO UPDATE
               SET claimed_by = excluded.claimed_by, claim_until = excluded.claim_until
             WHERE relay_delivery.claim_until IS NULL OR relay_delivery.claim_until < clock_timestamp()
                OR relay_delivery.claimed_by = excluded.claimed_by
            """;
    private static final String SQL_EVENTS = """
            SELECT position, wire, chain_digest FROM outbox
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ?
             ORDER BY position LIMIT ?
            """;
    private static final String SQL_DELIVERED = """
            UPDATE relay_delivery
               SET delivered_through = GREATEST(delivered_through, ?), failures = 0, next_attempt_at = NULL,
                   last_error = NULL, last_delivered_at = clock_timestamp(), claimed_by = NULL, claim_until = NULL
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ? AND claimed_by = ?
            """;
    private static final String SQL_FAILED = """
            UPDATE relay_delivery
               SET failures = failures + 1, last_error = ?,
                   next_attempt_at = clock_timestamp() + make_interval(secs => ?),
                   claimed_by = NULL, claim_until = NULL
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ? AND claimed_by = ?
            RETURNING failures
            """;
    private static final String SQL_FAILURES = """
            SELECT coalesce((SELECT failures FROM relay_delivery
                              WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ?), 0)
            """;
    /**
     * Publishes the prefix every push consumer of the stream has been delivered (or has durably processed);
     * with no push consumer there is nobody to deliver to and everything committed is published.
     */
    private static final String SQL_PUBLISH = """
            UPDATE outbox SET published_at = clock_timestamp()
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND published_at IS NULL
               AND position <= coalesce(
                     (SELECT min(GREATEST(coalesce(d.delivered_through, 0), c.durable_position))
                        FROM retention_consumer c
                        LEFT JOIN relay_delivery d ON d.consumer_id = c.consumer_id AND d.tenant = c.tenant
                                                  AND d.catalog = c.catalog AND d.epoch = c.epoch
                       WHERE c.tenant = ? AND c.catalog = ? AND c.epoch = ? AND c.delivery_url IS NOT NULL),
                     (SELECT position FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ?))
            """;
    private static final String SQL_UNPUBLISHED_STREAMS = """
            SELECT DISTINCT tenant, catalog, epoch FROM outbox WHERE published_at IS NULL LIMIT 1000
            """;

    private final JdbcClient jdbc;

    RelayRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<Due> due(String instance, int limit) {
        return jdbc.sql(SQL_DUE).params(instance, limit).query(RelayRepository::due).list();
    }

    /** @return true when this instance now holds the consumer's delivery claim */
    boolean claim(Due d, String instance, long claimSeconds) {
        return jdbc.sql(SQL_CLAIM).params(d.consumerId(), d.stream().tenant(), d.stream().catalog(), d.epoch(),
                instance, claimSeconds).update() == 1;
    }

    List<Event> events(StreamId s, long epoch, long after, int limit) {
        return jdbc.sql(SQL_EVENTS).params(s.tenant(), s.catalog(), epoch, after, limit)
                .query((rs, n) -> new Event(rs.getLong(1), rs.getString(2), rs.getString(3))).list();
    }

    boolean delivered(Due d, long through, String instance) {
        return jdbc.sql(SQL_DELIVERED).params(through, d.consumerId(), d.stream().tenant(), d.stream().catalog(),
                d.epoch(), instance).update() == 1;
    }

    void failed(Due d, String error, double backoffSeconds, String instance) {
        jdbc.sql(SQL_FAILED).params(error, backoffSeconds, d.consumerId(), d.stream().tenant(), d.stream().catalog(),
                d.epoch(), instance).query(Integer.class).optional();
    }

    int failures(Due d) {
        return jdbc.sql(SQL_FAILURES).params(d.consumerId(), d.stream().tenant(), d.stream().catalog(), d.epoch())
                .query(Integer.class).single();
    }

    int publish(StreamId s, long epoch) {
        return jdbc.sql(SQL_PUBLISH).params(s.tenant(), s.catalog(), epoch, s.tenant(), s.catalog(), epoch,
                s.tenant(), s.catalog(), epoch).update();
    }

    List<StreamEpoch> streamsWithUnpublished() {
        return jdbc.sql(SQL_UNPUBLISHED_STREAMS).query((rs, n) -> new StreamEpoch(
                new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3))).list();
    }

    private static Due due(ResultSet rs, int n) throws SQLException {
        return new Due(rs.getString("consumer_id"), new StreamId(rs.getString("tenant"), rs.getString("catalog")),
                rs.getLong("epoch"), rs.getString("delivery_url"), rs.getLong("delivered"), rs.getLong("head"));
    }

    /** A consumer with events to deliver. */
    record Due(String consumerId, StreamId stream, long epoch, String deliveryUrl, long delivered, long head) {
    }

    /** One outbox row as it goes on the wire. */
    record Event(long position, String wire, String chainDigest) {
    }

    record StreamEpoch(StreamId stream, long epoch) {
    }
}
