package com.acme.catalog.product.epoch;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The current epoch of each stream as the product learnt it from the resolver ({@code GET /v1/epochs/{t}/{c}},
 * read by the recovery worker and {@code EpochPoller}): the {@code stream_epoch} row, only ever raised, and a copy
 * in memory that every instance reloads every {@code product.epochs.reload-interval}. Events of an older epoch are
 * audited and ignored; a serving generation of an older epoch is stale (docs/epochs.md "The product"). The reload
 * runs every {@code product.epochs.reload-interval} ({@link EpochReloadScheduler}).
 */
@Component
public class StreamEpochs {

    private static final Logger log = LoggerFactory.getLogger(StreamEpochs.class);

    private static final String SQL_RAISE = """
            INSERT INTO stream_epoch (tenant, catalog, epoch) VALUES (?, ?, ?)
            ON CONFLICT (tenant, catalog) DO UPDATE SET epoch = EXCLUDED.epoch, learned_at = now()
             WHERE stream_epoch.epoch < EXCLUDED.epoch
            """;
    private static final String SQL_ONE = """
            SELECT epoch FROM stream_epoch WHERE tenant = ? AND catalog = ?
            """;
    private static final String SQL_ALL = """
            SELECT tenant, catalog, epoch FROM stream_epoch
            """;

    private final JdbcClient jdbc;
    private final EpochProperties properties;
    private final Map<StreamId, Long> known = new ConcurrentHashMap<>();

    StreamEpochs(JdbcClient jdbc, EpochProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
    }

    /** @return the highest epoch known for the stream, 0 when none was learnt yet */
    public long current(StreamId s) {
        return known.getOrDefault(s, 0L);
    }

    /** The same, read from the database (in the caller's transaction), for decisions that commit. */
    public long currentInDatabase(StreamId s) {
        long epoch = jdbc.sql(SQL_ONE).params(s.tenant(), s.catalog()).query(Long.class).optional().orElse(0L);
        known.merge(s, epoch, Math::max);
        return epoch;
    }

    /**
     * Records {@code epoch} as the stream's current one if it is above what is known.
     *
     * @return whether it raised the known epoch
     */
    public boolean learn(StreamId s, long epoch) {
        if (epoch < 1 || epoch <= current(s)) {
            return false;
        }
        boolean raised = jdbc.sql(SQL_RAISE).params(s.tenant(), s.catalog(), epoch).update() == 1;
        known.merge(s, epoch, Math::max);
        if (raised) {
            log.info("{}: the current epoch is now {}", s, epoch);
        }
        return raised;
    }

    /** Picks up what other instances learnt. */
    public void reload() {
        try {
            jdbc.sql(SQL_ALL).query((rs, n) -> {
                known.merge(new StreamId(rs.getString(1), rs.getString(2)), rs.getLong(3), Math::max);
                return null;
            }).list();
        } catch (RuntimeException e) {
            log.warn("could not reload the known epochs: {}", e.toString());
        }
    }
}
