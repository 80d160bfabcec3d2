package com.acme.catalog.resolver.bootstrap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.StreamOpening;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Carries a stream's import fence and move to the cursor row of its next epoch, in the transaction that opens it (a
 * rotation, or a reset under an import's fence): the new epoch refuses writes exactly as the old one did, so a reset
 * never opens a window for writers between a failed import and its retry, and a moved stream stays retired whatever
 * epoch it is in. A stream's first epoch has no row before it: nothing to carry.
 */
@Component
class FenceCarry implements StreamOpening {

    private static final String SQL_CARRY = """
            UPDATE stream_cursor n
               SET import_pid = o.import_pid, import_token = o.import_token, import_since = o.import_since,
                   import_by = o.import_by, move_state = o.move_state, move_target = o.move_target,
                   move_since = o.move_since, move_reason = o.move_reason, move_by = o.move_by
              FROM (SELECT import_pid, import_token, import_since, import_by, move_state, move_target, move_since,
                           move_reason, move_by
                      FROM stream_cursor
                     WHERE tenant = ? AND catalog = ? AND epoch < ?
                     ORDER BY epoch DESC LIMIT 1) o
             WHERE n.tenant = ? AND n.catalog = ? AND n.epoch = ?
               AND (o.import_pid IS NOT NULL OR o.move_state IS NOT NULL)
            """;

    private final JdbcClient jdbc;

    FenceCarry(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void opened(StreamId stream, long epoch) {
        jdbc.sql(SQL_CARRY).params(stream.tenant(), stream.catalog(), epoch, stream.tenant(), stream.catalog(), epoch)
                .update();
    }
}
