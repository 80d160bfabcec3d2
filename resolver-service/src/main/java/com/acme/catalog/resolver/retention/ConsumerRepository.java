package com.acme.catalog.resolver.retention;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.outbox.RelayWakeUp;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Registered consumers: one row per (consumer, stream), holding its epoch and durable position. */
@Repository
class ConsumerRepository {

    // the three reads answer the columns row() reads
    private static final String SQL_FIND = """
            SELECT consumer_id, tenant, catalog, epoch, durable_position, delivery_url, registered_by, registered_at,
                   progress_at
              FROM retention_consumer WHERE consumer_id = ? AND tenant = ? AND catalog = ?
            """;
    private static final String SQL_FIND_BY_ID = """
            SELECT consumer_id, tenant, catalog, epoch, durable_position, delivery_url, registered_by, registered_at,
                   progress_at
              FROM retention_consumer WHERE consumer_id = ? ORDER BY tenant, catalog
            """;
    private static final String SQL_FOR_STREAM = """
            SELECT consumer_id, tenant, catalog, epoch, durable_position, delivery_url, registered_by, registered_at,
                   progress_at
              FROM retention_consumer WHERE tenant = ? AND catalog = ? ORDER BY consumer_id
            """;
    private static final String SQL_REGISTER = """
            INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                            registered_by)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (consumer_id, tenant, catalog) DO UPDATE
               SET epoch = excluded.epoch, durable_position = excluded.durable_position,
                   delivery_url = excluded.delivery_url, registered_at = now(), progress_at = NULL
            """;
    private static final String SQL_UPDATE_DELIVERY = """
            UPDATE retention_consumer SET delivery_url = ?
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ?
            """;
    private static final String SQL_PROGRESS = """
            UPDATE retention_consumer
               SET durable_position = GREATEST(durable_position, ?), progress_at = clock_timestamp()
             WHERE consumer_id = ? AND tenant = ? AND catalog = ? AND epoch = ?
            RETURNING durable_position
            """;
    private static final String SQL_MIN_POSITION = """
            SELECT min(durable_position) FROM retention_consumer WHERE tenant = ? AND catalog = ? AND epoch = ?
            """;
    private static final String SQL_DELETE = """
            DELETE FROM retention_consumer
             WHERE consumer_id = ? AND (CAST(? AS text) IS NULL OR tenant = ?) AND (CAST(? AS text) IS NULL OR catalog = ?)
            """;

    private final JdbcClient jdbc;

    /**
     * Wakes the relay at the caller's commit to look at {@code s}'s consumers: a registration is delivered at once,
     * not at the relay's next pass over every stream.
     */
    void wakeRelay(StreamId s, long epoch) {
        jdbc.sql(RelayWakeUp.SQL_NOTIFY).params(RelayWakeUp.payload(s, epoch)).query().singleRow();
    }

    ConsumerRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<ConsumerRegistration> find(String consumerId, StreamId s) {
        return jdbc.sql(SQL_FIND).params(consumerId, s.tenant(), s.catalog()).query(ConsumerRepository::row)
                .optional();
    }

    List<ConsumerRegistration> findById(String consumerId) {
        return jdbc.sql(SQL_FIND_BY_ID).params(consumerId).query(ConsumerRepository::row).list();
    }

    List<ConsumerRegistration> forStream(StreamId s) {
        return jdbc.sql(SQL_FOR_STREAM).params(s.tenant(), s.catalog()).query(ConsumerRepository::row).list();
    }

    /**
     * Inserts, or moves a registration of an older epoch to {@code epoch} at {@code position} (keeping who
     * registered it first); call under the retention lock of (s, epoch).
     */
    void register(String consumerId, StreamId s, long epoch, long position, String deliveryUrl, String by) {
        jdbc.sql(SQL_REGISTER).params(consumerId, s.tenant(), s.catalog(), epoch, position, deliveryUrl, by)
                .update();
    }

    void updateDeliveryUrl(String consumerId, StreamId s, long epoch, String deliveryUrl) {
        jdbc.sql(SQL_UPDATE_DELIVERY).params(deliveryUrl, consumerId, s.tenant(), s.catalog(), epoch).update();
    }

    /** Raises the durable position monotonically; empty when no registration of that epoch exists. */
    OptionalLong progress(String consumerId, StreamId s, long epoch, long position) {
        Optional<Long> p = jdbc.sql(SQL_PROGRESS).params(position, consumerId, s.tenant(), s.catalog(), epoch)
                .query(Long.class).optional();
        return p.isPresent() ? OptionalLong.of(p.get()) : OptionalLong.empty();
    }

    OptionalLong minDurablePosition(StreamId s, long epoch) {
        return jdbc.sql(SQL_MIN_POSITION).params(s.tenant(), s.catalog(), epoch).query(ConsumerRepository::nullable)
                .single();
    }

    /** Deletes the consumer's registrations, all of them or those of one tenant / stream. */
    int delete(String consumerId, String tenant, String catalog) {
        return jdbc.sql(SQL_DELETE).params(consumerId, tenant, tenant, catalog, catalog).update();
    }

    static OptionalLong nullable(ResultSet rs, int n) throws SQLException {
        long v = rs.getLong(1);
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
    }

    private static ConsumerRegistration row(ResultSet rs, int n) throws SQLException {
        Timestamp progressAt = rs.getTimestamp("progress_at");
        return new ConsumerRegistration(rs.getString("consumer_id"),
                new StreamId(rs.getString("tenant"), rs.getString("catalog")), rs.getLong("epoch"),
                rs.getLong("durable_position"), rs.getString("delivery_url"), rs.getString("registered_by"),
                rs.getTimestamp("registered_at").toInstant(), progressAt == null ? null : progressAt.toInstant());
    }

    /** One consumer's registration for one stream. */
    record ConsumerRegistration(String consumerId, StreamId stream, long epoch, long durablePosition,
            String deliveryUrl, String registeredBy, Instant registeredAt, Instant progressAt) {
    }
}
