package com.acme.catalog.product.epoch;

import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.epoch.OldEpochDelivery;
import com.acme.catalog.platform.metrics.TenantTags;
import com.acme.catalog.product.projection.IntegrationEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The audit trail of events of an epoch older than the stream's current one that reached the product
 * ({@code old_epoch_delivery}), terminally ignored, and {@code product_old_epoch_deliveries_total} (every source),
 * counted by callers once the recording transaction committed. The counter is one per instance, at 0 from start,
 * or, with {@code product.metrics.per-tenant}, one per tenant, at 0 once the tenant is {@link #known}; never per
 * stream (the audit list names the streams).
 */
@Repository
public class OldEpochAudit {

    /** Where an old-epoch event reached the product. */
    public enum Source { DELIVERY, PAGE, EXPORT, PARKED }

    private static final String SQL_RECORD = """
            INSERT INTO old_epoch_delivery (tenant, catalog, epoch, position, event_id, event_type, serving_epoch,
                                            source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """;
    /** Every held event (PARKED or PENDING) of the generation becomes an audit row and is deleted. */
    private static final String SQL_DISCARD_HELD = """
            WITH gone AS (DELETE FROM held_event WHERE generation_id = ? RETURNING position, event_id, event_type)
            INSERT INTO old_epoch_delivery (tenant, catalog, epoch, position, event_id, event_type, serving_epoch,
                                            source)
            SELECT ?, ?, ?, position, event_id, event_type, ?, 'PARKED' FROM gone
            """;
    private static final String SQL_LIST = """
            SELECT tenant, catalog, epoch, position, source, received_at FROM old_epoch_delivery
             WHERE (?::text IS NULL OR tenant = ?) AND (?::text IS NULL OR catalog = ?)
             ORDER BY delivery_id DESC LIMIT ?
            """;

    private final JdbcClient jdbc;
    private final MeterRegistry meters;
    private final TenantTags tenantTags;

    OldEpochAudit(JdbcClient jdbc, MeterRegistry meters, TenantTags tenantTags) {
        this.jdbc = jdbc;
        this.meters = meters;
        this.tenantTags = tenantTags;
        if (!tenantTags.isPerTenant()) {
            counter(Tags.empty());
        }
    }

    private static final String DESCRIPTION =
            "events of an epoch older than the stream's current one (delivered, paged, exported or parked), "
                    + "audited and ignored";

    public void record(IntegrationEvent e, long currentEpoch, Source source) {
        jdbc.sql(SQL_RECORD).params(e.stream().tenant(), e.stream().catalog(), e.epoch(), e.position(), e.eventId(),
                e.type(), currentEpoch, source.name()).update();
    }

    /** An export manifest of an old epoch: one row at its cursor, no event. */
    public void recordExport(StreamId s, long epoch, long cursor, long currentEpoch) {
        jdbc.sql(SQL_RECORD).params(s.tenant(), s.catalog(), epoch, cursor, null, null, currentEpoch,
                Source.EXPORT.name()).update();
    }

    /**
     * Discards the held events of an old-epoch generation into the audit.
     *
     * @return how many
     */
    public int discardHeld(long generationId, StreamId s, long generationEpoch, long currentEpoch) {
        return jdbc.sql(SQL_DISCARD_HELD).params(generationId, s.tenant(), s.catalog(), generationEpoch,
                currentEpoch).update();
    }

    /** Counts {@code n} audited events of {@code source}; call after the transaction that recorded them committed. */
    public void count(StreamId s, Source source, long n) {
        if (n > 0) {
            counter(tenantTags.of(s)).increment(n);
        }
    }

    /**
     * Registers the counter (at 0) that counts the stream's old-epoch events if it is not yet, so that an alert on
     * {@code increase(...)} sees the first one; per instance it exists from start already.
     */
    public void known(StreamId s) {
        if (tenantTags.isPerTenant()) {
            counter(tenantTags.of(s));
        }
    }

    private Counter counter(Tags tags) {
        return Counter.builder("product.old.epoch.deliveries").description(DESCRIPTION).tags(tags).register(meters);
    }

    /** @return the audited events, newest first, at most {@code limit}; null tenant or catalog: any */
    public List<OldEpochDelivery> list(String tenant, String catalog, int limit) {
        return jdbc.sql(SQL_LIST).params(tenant, tenant, catalog, catalog, limit)
                .query((rs, n) -> new OldEpochDelivery(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
                        rs.getString(5), rs.getTimestamp(6).toInstant())).list();
    }
}
