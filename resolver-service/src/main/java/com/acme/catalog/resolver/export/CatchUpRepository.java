package com.acme.catalog.resolver.export;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads retained outbox rows for the catch-up endpoint; called inside the page's snapshot transaction. */
@Repository
class CatchUpRepository {

    private static final String SQL_PAGE = """
            SELECT position, wire, chain_digest FROM outbox
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position > ? AND position <= ?
             ORDER BY position
             LIMIT ?
            """;
    private static final String SQL_DIGEST_AT = """
            SELECT chain_digest FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ?
            """;
    private static final String SQL_PRUNED_DIGEST_AT = """
            SELECT chain_digest FROM outbox_pruned_digest
             WHERE tenant = ? AND catalog = ? AND epoch = ? AND position = ?
            """;
    private static final String SQL_ANY_CURSOR = """
            SELECT EXISTS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ?)
            """;

    private final JdbcClient jdbc;
    private final JdbcTemplate streaming;

    CatchUpRepository(JdbcClient jdbc, DataSource dataSource) {
        this.jdbc = jdbc;
        this.streaming = new JdbcTemplate(dataSource);
        // one round trip for a default-sized page (500) and few for the largest (5000); the byte cap still bounds memory
        this.streaming.setFetchSize(1000);
    }

    /**
     * Events of (s, epoch) after {@code after} through {@code head}, in position order: at most {@code limit},
     * and none after the one that brings the wire text to {@code maxBytes} (so at least one when any exists).
     */
    List<StoredEvent> page(StreamId s, long epoch, long after, long head, int limit, long maxBytes) {
        return streaming.query(SQL_PAGE, rs -> {
            List<StoredEvent> events = new ArrayList<>();
            long bytes = 0;
            while (bytes < maxBytes && rs.next()) {
                StoredEvent e = new StoredEvent(rs.getLong(1), rs.getString(2), rs.getString(3));
                events.add(e);
                bytes += utf8Length(e.wire());
            }
            return events;
        }, s.tenant(), s.catalog(), epoch, after, head, limit);
    }

    /** The chain digest stored with the outbox row at {@code position}; empty when that row is gone. */
    Optional<String> digestAt(StreamId s, long epoch, long position) {
        return jdbc.sql(SQL_DIGEST_AT).params(s.tenant(), s.catalog(), epoch, position).query(String.class)
                .optional();
    }

    /** The digest recorded when the row at {@code position} was pruned, if it was the last one pruned. */
    Optional<String> prunedDigestAt(StreamId s, long epoch, long position) {
        return jdbc.sql(SQL_PRUNED_DIGEST_AT).params(s.tenant(), s.catalog(), epoch, position).query(String.class)
                .optional();
    }

    boolean anyCursor(StreamId s) {
        return jdbc.sql(SQL_ANY_CURSOR).params(s.tenant(), s.catalog()).query(Boolean.class).single();
    }

    private static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** One outbox row as the page needs it: the stored wire, verbatim, and its chain digest. */
    record StoredEvent(long position, String wire, String chainDigest) {
    }
}
