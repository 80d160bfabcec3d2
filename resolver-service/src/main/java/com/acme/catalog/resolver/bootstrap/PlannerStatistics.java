package com.acme.catalog.resolver.bootstrap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Refreshes the planner statistics of the tables an import fills. A fresh database has none, and without them
 * PostgreSQL answers the write path's key lookups (current revision, live item revision) by scanning the stream's
 * whole prefix of an index: every event then costs time proportional to the events before it. Autovacuum analyzes
 * too late for an import that takes seconds, so the importer does it itself as the stream grows.
 */
@Repository
class PlannerStatistics {

    /** The tables the write path reads under the cursor lock (not the outbox: written, never looked up). */
    private static final String SQL_ANALYZE = """
            ANALYZE item, mapping, policy, release, accepted_revision
            """;

    private static final Logger log = LoggerFactory.getLogger(PlannerStatistics.class);

    private final JdbcClient jdbc;

    PlannerStatistics(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** @return true when the statistics were refreshed; a refusal (e.g. not the tables' owner) is only logged */
    boolean refresh() {
        try {
            jdbc.sql(SQL_ANALYZE).update();
            return true;
        } catch (DataAccessException e) {
            log.warn("could not ANALYZE the resolver tables during a bootstrap import (import goes on, slower): {}",
                    e.getMessage());
            return false;
        }
    }
}
