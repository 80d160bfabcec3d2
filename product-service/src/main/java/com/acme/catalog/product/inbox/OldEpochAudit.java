package com.acme.catalog.product.inbox;

import com.acme.catalog.product.projection.IntegrationEvent;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The audit trail of deliveries from an epoch older than the serving generation's. */
@Repository
class OldEpochAudit {

    private static final String SQL_RECORD = """
            INSERT INTO old_epoch_delivery (tenant, catalog, epoch, position, event_id, event_type, serving_epoch)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """;

    private final JdbcClient jdbc;

    OldEpochAudit(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void record(IntegrationEvent e, long servingEpoch) {
        jdbc.sql(SQL_RECORD).params(e.stream().tenant(), e.stream().catalog(), e.epoch(), e.position(), e.eventId(),
                e.type(), servingEpoch).update();
    }
}
