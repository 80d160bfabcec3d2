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
                    + "); a bootstrap import needs an empty stream");
        }
    }

    private record Destination(long position, boolean hasState) {
    }
}
