package com.acme.catalog.product.rebuild;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The cutover's statements: its checks on the shadow and the serving copy, and the swap of the serving pointer. */
@Repository
class CutoverRepository {

    private static final String SQL_PARKED_AT_OR_BELOW = """
            SELECT count(*) FROM held_event WHERE generation_id = ? AND state = 'PARKED' AND position <= ?
            """;
    private static final String SQL_DIVERGED = """
            SELECT diverged_at IS NOT NULL FROM generation WHERE generation_id = ?
            """;
    private static final String SQL_POINT = """
            INSERT INTO serving_generation (tenant, catalog, generation_id) VALUES (?, ?, ?)
            ON CONFLICT (tenant, catalog) DO UPDATE SET generation_id = excluded.generation_id, switched_at = now()
            """;
    private static final String SQL_SERVING_STATUS = """
            UPDATE generation SET status = 'SERVING', updated_at = now() WHERE generation_id = ?
            """;

    private final JdbcClient jdbc;

    CutoverRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return the events parked in generation {@code g} at or below {@code position} */
    long parkedAtOrBelow(long g, long position) {
        return jdbc.sql(SQL_PARKED_AT_OR_BELOW).params(g, position).query(Long.class).single();
    }

    /** @return whether generation {@code g} is known to have diverged from the resolver's history */
    boolean diverged(long g) {
        return jdbc.sql(SQL_DIVERGED).params(g).query(Boolean.class).single();
    }

    /** Points the stream's readers and live applier at generation {@code g}, now SERVING (caller's transaction). */
    void pointServingAt(StreamId stream, long g) {
        jdbc.sql(SQL_POINT).params(stream.tenant(), stream.catalog(), g).update();
        jdbc.sql(SQL_SERVING_STATUS).params(g).update();
    }
}
