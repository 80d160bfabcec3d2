package com.acme.catalog.resolver.stream;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Inserts outbox rows; written only under the stream's cursor lock, in the same transaction as state. */
@Repository
public class OutboxRepository {

    private static final String SQL_INSERT = """
            INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id, transaction_ordinal,
                                transaction_count, event_type, aggregate_type, aggregate_id, revision, wire,
                                chain_digest, occurred_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;

    private final JdbcClient jdbc;

    public OutboxRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public void insert(StreamId s, OutboxRow row) {
        jdbc.sql(SQL_INSERT).params(s.tenant(), s.catalog(), row.epoch(), row.position(), row.eventId(),
                row.transactionId(), row.transactionOrdinal(), row.transactionCount(), row.type(), row.aggregateType(),
                row.aggregateId(), row.revision(), row.wire(), row.chainDigest(), Timestamp.from(row.occurredAt()))
                .update();
    }

    /** One outbox row as stored. */
    public record OutboxRow(long epoch, long position, UUID eventId, UUID transactionId, int transactionOrdinal,
            int transactionCount, String type, String aggregateType, String aggregateId, Integer revision,
            String wire, String chainDigest, Instant occurredAt) {
    }
}
