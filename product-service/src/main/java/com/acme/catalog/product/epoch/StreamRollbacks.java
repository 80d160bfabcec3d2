package com.acme.catalog.product.epoch;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.stream.StreamSummary;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The streams whose history the resolver reports rolled back ({@code GET /v1/streams}, {@code rolledBack}), as the
 * stream sweep observes them: the {@code stream_rollback} row, which every public read joins to the serving pointer
 * (docs/epochs.md "What readers see after a rollback"). Why a row and not only memory: every instance refuses from
 * the moment one recorded it, and a restarted instance refuses before its first sweep.
 *
 * <p>What is recorded is the resolver's restored head (epoch, cursor, digest there): a generation of that epoch that
 * stands anywhere else holds history that no longer exists at the resolver (the lost tail) and is not served; one at
 * exactly that head (a rebuild from the restored state) is. The copy in memory only spares the sweep a statement per
 * rolled back stream and feeds {@code product_streams_rolled_back}.
 */
@Component
public class StreamRollbacks {

    private static final Logger log = LoggerFactory.getLogger(StreamRollbacks.class);

    private static final String SQL_RECORD = """
            INSERT INTO stream_rollback (tenant, catalog, epoch, cursor, chain_digest, rolled_back_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant, catalog) DO UPDATE
               SET epoch = EXCLUDED.epoch, cursor = EXCLUDED.cursor, chain_digest = EXCLUDED.chain_digest,
                   rolled_back_at = EXCLUDED.rolled_back_at, learned_at = now()
             WHERE stream_rollback.epoch <= EXCLUDED.epoch
            """;
    /** The resolver lists the stream in this epoch (or a later one) and not rolled back. */
    private static final String SQL_CLEAR = """
            DELETE FROM stream_rollback WHERE tenant = ? AND catalog = ? AND epoch <= ?
            """;

    private static final String SQL_ALL = """
            SELECT tenant, catalog, epoch, cursor, chain_digest, rolled_back_at FROM stream_rollback
            """;

    private final JdbcClient jdbc;
    private final Map<StreamId, Rollback> known = new ConcurrentHashMap<>();
    private volatile boolean loaded;

    StreamRollbacks(JdbcClient jdbc, MeterRegistry meters) {
        this.jdbc = jdbc;
        Gauge.builder("product.streams.rolled.back", known, Map::size)
                .description("streams whose history the resolver reports rolled back: their generations of that "
                        + "epoch are refused to public readers (503 HISTORY_ROLLED_BACK) unless at the restored head")
                .register(meters);
    }

    /**
     * Records what the resolver's listing says of a stream: rolled back (its restored head), or no longer rolled
     * back in the listed epoch.
     *
     * @return whether it recorded a rollback this instance did not know of
     */
    public boolean observe(StreamId s, StreamSummary listed) {
        if (!loaded) {
            load();
        }
        Rollback seen = known.get(s);
        if (!listed.rolledBack()) {
            if (seen != null && seen.epoch() <= listed.epoch()) {
                jdbc.sql(SQL_CLEAR).params(s.tenant(), s.catalog(), listed.epoch()).update();
                known.remove(s, seen);
                log.info("{}: the resolver no longer reports epoch {} rolled back", s, seen.epoch());
            }
            return false;
        }
        Rollback r = new Rollback(listed.epoch(), listed.cursor(), listed.chainDigest(), listed.rolledBackAt());
        if (r.equals(seen) || seen != null && seen.epoch() > r.epoch()) {
            return false;
        }
        jdbc.sql(SQL_RECORD).params(s.tenant(), s.catalog(), r.epoch(), r.cursor(), r.chainDigest(),
                r.at() == null ? null : Timestamp.from(r.at())).update();
        known.put(s, r);
        log.warn("{}: the resolver reports the history of epoch {} rolled back to position {} (at {}); public reads "
                + "refuse every generation of that epoch not at that head (HISTORY_ROLLED_BACK)", s, r.epoch(),
                r.cursor(), r.at());
        return true;
    }

    /** The rows recorded before this process started (by it or another instance), so a rotation clears them. */
    private synchronized void load() {
        if (loaded) {
            return;
        }
        jdbc.sql(SQL_ALL).query((rs, n) -> {
            Timestamp at = rs.getTimestamp("rolled_back_at");
            known.putIfAbsent(new StreamId(rs.getString("tenant"), rs.getString("catalog")), new Rollback(
                    rs.getLong("epoch"), rs.getLong("cursor"), rs.getString("chain_digest"),
                    at == null ? null : at.toInstant()));
            return null;
        }).list();
        loaded = true;
    }

    /**
     * Whether a generation of {@code epoch} standing at ({@code applied}, {@code chainPosition}, {@code digest})
     * holds history the resolver reports lost, as this instance knows it (completeness; public reads decide from the
     * row).
     *
     * @return why, or empty when it does not
     */
    public Optional<String> lostHistory(StreamId s, long epoch, long applied, long chainPosition, String digest) {
        if (!loaded) {
            load();
        }
        Rollback r = known.get(s);
        if (r == null || r.epoch() != epoch
                || applied == r.cursor() && chainPosition == r.cursor() && r.chainDigest().equals(digest)) {
            return Optional.empty();
        }
        return Optional.of("the resolver reports the history of epoch %d rolled back to position %d%s; the product "
                .formatted(epoch, r.cursor(), r.at() == null ? "" : " (found at " + r.at() + ")")
                + "applied position %d, not that head".formatted(applied));
    }

    /** @return how many streams this instance knows to be rolled back at the resolver */
    public int count() {
        return known.size();
    }

    /**
     * The resolver's restored head of a rolled back epoch.
     *
     * @param at when the resolver found it (null from a resolver that does not say)
     */
    record Rollback(long epoch, long cursor, String chainDigest, Instant at) {
    }
}
