package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Whether a stream may receive a bootstrap import: no committed position and no accepted state at all. */
@Repository
class DestinationRepository {

    private static final String SQL_DESTINATION = """
            SELECT coalesce((SELECT position FROM stream_cursor
                              WHERE tenant = :tenant AND catalog = :catalog AND fenced_at IS NULL), 0) AS position,
                   EXISTS (SELECT 1 FROM item WHERE tenant = :tenant AND catalog = :catalog)
                OR EXISTS (SELECT 1 FROM mapping WHERE tenant = :tenant AND catalog = :catalog)
                OR EXISTS (SELECT 1 FROM policy WHERE tenant = :tenant AND catalog = :catalog)
                OR EXISTS (SELECT 1 FROM release WHERE tenant = :tenant AND catalog = :catalog)
                OR EXISTS (SELECT 1 FROM accepted_revision WHERE tenant = :tenant AND catalog = :catalog) AS has_state
            """;

    /**
     * Events of the stream's epoch through {@code position} its push consumers have not been delivered (nor processed
     * durably): the most behind consumer's; 0 without a push consumer (nobody to deliver to).
     */
    private static final String SQL_OUTBOX_LAG = """
            SELECT coalesce(:position - min(GREATEST(coalesce(d.delivered_through, 0), c.durable_position)), 0)
              FROM retention_consumer c
              LEFT JOIN relay_delivery d ON d.consumer_id = c.consumer_id AND d.tenant = c.tenant
                                        AND d.catalog = c.catalog AND d.epoch = c.epoch
             WHERE c.tenant = :tenant AND c.catalog = :catalog AND c.epoch = :epoch AND c.delivery_url IS NOT NULL
            """;

    private final JdbcClient jdbc;

    DestinationRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * @throws ApiException {@code DESTINATION_NOT_EMPTY} when the stream has a position above 0 or any accepted
     *                      state (current rows or revisions)
     */
    void requireEmpty(StreamId s) {
        Destination d = jdbc.sql(SQL_DESTINATION).param("tenant", s.tenant()).param("catalog", s.catalog())
                .query((rs, n) -> new Destination(rs.getLong("position"), rs.getBoolean("has_state"))).single();
        if (d.position() > 0 || d.hasState()) {
            throw new ApiException(ProblemCode.DESTINATION_NOT_EMPTY, "stream " + s + " is not empty (position "
                    + d.position() + (d.hasState() ? ", accepted state present" : "")
                    + "); a bootstrap import needs an empty stream (a failed import's partial state: import again with a reset, "
                    + "--reset REASON or ?reset=REASON)");
        }
    }

    private record Destination(long position, boolean hasState) {
    }

    /** @return the outbox lag of the stream's push consumers at {@code position} of {@code epoch} */
    long outboxLag(StreamId s, long epoch, long position) {
        return jdbc.sql(SQL_OUTBOX_LAG).param("position", position).param("tenant", s.tenant())
                .param("catalog", s.catalog()).param("epoch", epoch).query(Long.class).single();
    }
}
