package com.acme.catalog.resolver.retention;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.platform.sql.UnnestColumns;
import com.acme.catalog.resolver.outbox.RelayWakeUp;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Pattern subscriptions ({@code retention_subscription}) and the registrations they make: ordinary
 * {@code retention_consumer} rows at durable position 0. Every statement runs in its caller's transaction, after
 * {@link #lockShared} (an opening) or {@link #lockExclusive} (a change of subscriptions).
 */
@Repository
class SubscriptionRepository {

    private static final String SQL_LOCK_SHARED = """
            SELECT id FROM retention_subscription_lock FOR SHARE
            """;
    private static final String SQL_LOCK_EXCLUSIVE = """
            SELECT id FROM retention_subscription_lock FOR UPDATE
            """;
    /**
     * A registration of the stream's epoch for every subscription matching it: new rows at 0; a row of an older
     * epoch moves to this one at 0; a row of this epoch (registered by hand, or by the subscription already) stays.
     * Parameters: tenant, catalog, epoch, tenant.
     */
    private static final String SQL_REGISTER_OPENED = """
            INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                            registered_by)
            SELECT s.consumer_id, ?, ?, ?, 0, s.delivery_url, s.registered_by
              FROM retention_subscription s
             WHERE s.tenant IN (?, '*')
            ON CONFLICT (consumer_id, tenant, catalog) DO UPDATE
               SET epoch = excluded.epoch, durable_position = 0, delivery_url = excluded.delivery_url,
                   registered_at = now(), progress_at = NULL
             WHERE retention_consumer.epoch < excluded.epoch
            """;
    private static final UnnestColumns<Map.Entry<StreamId, Long>> OPENED_COLUMNS =
            UnnestColumns.<Map.Entry<StreamId, Long>>of(null)
                    .text("tenant", e -> e.getKey().tenant())
                    .text("catalog", e -> e.getKey().catalog())
                    .bigints("epoch", Map.Entry::getValue);
    /**
     * {@link #SQL_REGISTER_OPENED} for many opened streams in one statement; a consumer subscribed both to the
     * stream's tenant and to every tenant is registered once.
     */
    private static final BoundSql<Map<StreamId, Long>> REGISTER_OPENED_ALL = BoundSql.<Map<StreamId, Long>>builder()
            .sql("""
                    INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                                    registered_by)
                    SELECT DISTINCT ON (s.consumer_id, u.tenant, u.catalog)
                           s.consumer_id, u.tenant, u.catalog, u.epoch, 0, s.delivery_url, s.registered_by
                      FROM\s""").unnest(Map::entrySet, OPENED_COLUMNS).sql("""

                      JOIN retention_subscription s ON s.tenant IN (u.tenant, '*')
                     ORDER BY s.consumer_id, u.tenant, u.catalog, s.tenant = '*'
                    ON CONFLICT (consumer_id, tenant, catalog) DO UPDATE
                       SET epoch = excluded.epoch, durable_position = 0, delivery_url = excluded.delivery_url,
                           registered_at = now(), progress_at = NULL
                     WHERE retention_consumer.epoch < excluded.epoch
                    """).build();
    /** Parameters: consumer, tenant pattern, delivery URL, identity. */
    private static final String SQL_SUBSCRIBE = """
            INSERT INTO retention_subscription (consumer_id, tenant, catalog, delivery_url, registered_by)
            VALUES (?, ?, '*', CAST(? AS text), ?)
            ON CONFLICT (consumer_id, tenant, catalog) DO UPDATE SET delivery_url = excluded.delivery_url
            """;
    /**
     * The subscription's registration in every open stream it matches: as {@link #SQL_REGISTER_OPENED}, except that
     * a registration of the current epoch takes the subscription's delivery URL.
     */
    private static final String SQL_REGISTER_EXISTING = """
            INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                            registered_by)
            SELECT :consumer, c.tenant, c.catalog, c.epoch, 0, CAST(:url AS text), :by
              FROM stream_cursor c
             WHERE c.fenced_at IS NULL AND (:pattern = '*' OR c.tenant = :pattern)
            ON CONFLICT (consumer_id, tenant, catalog) DO UPDATE
               SET epoch = excluded.epoch,
                   durable_position = CASE WHEN retention_consumer.epoch < excluded.epoch THEN 0
                                           ELSE retention_consumer.durable_position END,
                   delivery_url = excluded.delivery_url
             WHERE retention_consumer.epoch <= excluded.epoch
            """;
    /** Identities other than {@code :identity} that registered consumer {@code :consumer} anywhere. */
    private static final String SQL_OTHER_OWNERS = """
            SELECT registered_by FROM retention_consumer WHERE consumer_id = :consumer AND registered_by <> :identity
            UNION
            SELECT registered_by FROM retention_subscription
             WHERE consumer_id = :consumer AND registered_by <> :identity
            """;
    private static final String SQL_UNSUBSCRIBE = """
            DELETE FROM retention_subscription WHERE consumer_id = ? AND (CAST(? AS text) IS NULL OR tenant = ?)
            """;
    private static final String SQL_FOR_CONSUMER = """
            SELECT tenant FROM retention_subscription WHERE consumer_id = ? ORDER BY tenant
            """;

    private final JdbcClient jdbc;

    SubscriptionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Keeps subscriptions from changing until the transaction ends; openings share it. */
    void lockShared() {
        jdbc.sql(SQL_LOCK_SHARED).query().singleRow();
    }

    /** Waits for every opening in flight, and keeps new ones out until the transaction ends. */
    void lockExclusive() {
        jdbc.sql(SQL_LOCK_EXCLUSIVE).query().singleRow();
    }

    /** @return how many subscriptions registered the opened stream */
    int registerOpened(StreamId s, long epoch) {
        return jdbc.sql(SQL_REGISTER_OPENED).params(s.tenant(), s.catalog(), epoch, s.tenant()).update();
    }

    /** @return how many registrations the opened streams' subscriptions made or moved */
    int registerOpenedAll(Map<StreamId, Long> epochs) {
        return jdbc.sql(REGISTER_OPENED_ALL.sql()).params(REGISTER_OPENED_ALL.params(epochs)).update();
    }

    /** Stores (or re-points) the subscription of {@code consumerId} to {@code tenantPattern}'s streams. */
    void subscribe(String consumerId, String tenantPattern, String deliveryUrl, String by) {
        jdbc.sql(SQL_SUBSCRIBE).params(consumerId, tenantPattern, deliveryUrl, by).update();
    }

    /** @return how many streams' registrations were made or moved */
    int registerExisting(String consumerId, String tenantPattern, String deliveryUrl, String by) {
        return jdbc.sql(SQL_REGISTER_EXISTING).param("consumer", consumerId).param("url", deliveryUrl)
                .param("by", by).param("pattern", tenantPattern).update();
    }

    List<String> otherOwners(String consumerId, String identity) {
        return jdbc.sql(SQL_OTHER_OWNERS).param("consumer", consumerId).param("identity", identity)
                .query(String.class).list();
    }

    /** Removes the consumer's subscriptions, all or the one to {@code tenantPattern}. */
    int unsubscribe(String consumerId, String tenantPattern) {
        return jdbc.sql(SQL_UNSUBSCRIBE).params(consumerId, tenantPattern, tenantPattern).update();
    }

    /** Wakes the relay at the caller's commit for a pass over every stream (the subscription's registrations). */
    void wakeRelay() {
        jdbc.sql(RelayWakeUp.SQL_NOTIFY).params(RelayWakeUp.EVERY_STREAM).query().singleRow();
    }

    /** @return the tenant patterns the consumer subscribes to */
    List<String> subscriptions(String consumerId) {
        return jdbc.sql(SQL_FOR_CONSUMER).params(consumerId).query(String.class).list();
    }
}
