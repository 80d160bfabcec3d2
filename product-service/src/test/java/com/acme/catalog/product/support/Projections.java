package com.acme.catalog.product.support;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;

/** Reads (and, for tests that reuse a stream, empties) a stream's serving generation straight from SQL. */
public final class Projections {

    private final JdbcClient jdbc;

    public Projections(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public long servingGeneration(StreamId s) {
        return jdbc.sql("SELECT generation_id FROM serving_generation WHERE tenant = ? AND catalog = ?")
                .params(s.tenant(), s.catalog()).query(Long.class).single();
    }

    /** {@code chain_position, applied_position, highest_seen_position} of the serving generation. */
    public long[] cursor(StreamId s) {
        return jdbc.sql("""
                SELECT g.chain_position, g.applied_position, g.highest_seen_position
                  FROM serving_generation s JOIN generation g USING (generation_id)
                 WHERE s.tenant = ? AND s.catalog = ?
                """).params(s.tenant(), s.catalog())
                .query((rs, n) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}).single();
    }

    /** {@code chain_position, applied_position} of any generation. */
    public long[] cursorOf(long generation) {
        return jdbc.sql("SELECT chain_position, applied_position FROM generation WHERE generation_id = ?")
                .params(generation).query((rs, n) -> new long[] {rs.getLong(1), rs.getLong(2)}).single();
    }

    public long held(StreamId s) {
        return count("held_event", servingGeneration(s));
    }

    public long count(String table, long generation) {
        return jdbc.sql("SELECT count(*) FROM " + table + " WHERE generation_id = ?").params(generation)
                .query(Long.class).single();
    }

    public List<String> tables() {
        return jdbc.sql("SELECT unnest(generation_tables())").query(String.class).list();
    }

    /**
     * Every row of every per-generation table plus the cursor, without generation ids and wall-clock columns, in a
     * fixed order: two generations that hold the same projection dump equal.
     */
    public Map<String, List<String>> dump(long generation) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String t : tables()) {
            out.put(t, jdbc.sql("SELECT (to_jsonb(t) - 'generation_id' - 'processed_at' - 'received_at')::text AS r "
                    + "FROM " + t + " t WHERE generation_id = ? ORDER BY 1").params(generation)
                    .query(String.class).list());
        }
        out.put("cursor", jdbc.sql("""
                SELECT concat_ws(' ', chain_position, chain_digest, applied_position, highest_seen_position)
                  FROM generation WHERE generation_id = ?
                """).params(generation).query(String.class).list());
        return out;
    }

    /** Makes the generation empty at position 0 again, as if just started. Test use only. */
    public void reset(long generation) {
        for (String t : tables()) {
            jdbc.sql("DELETE FROM " + t + " WHERE generation_id = ?").params(generation).update();
        }
        jdbc.sql("""
                UPDATE generation SET chain_position = 0, chain_digest = ?, applied_position = 0,
                       highest_seen_position = 0 WHERE generation_id = ?
                """).params(ChainDigest.ZERO, generation).update();
    }

    /** Current items as {@code id -> "revision|deleted|canonical attributes"}. */
    public Map<String, String> items(long generation) {
        Map<String, String> out = new TreeMap<>();
        jdbc.sql("SELECT item_id, revision, deleted, attributes::text FROM item WHERE generation_id = ?")
                .params(generation).query(rs -> {
                    out.put(rs.getString(1), rs.getInt(2) + "|" + rs.getBoolean(3) + "|"
                            + ExpectedProjection.canonical(rs.getString(4)));
                });
        return out;
    }

    public Map<String, String> releases(long generation) {
        Map<String, String> out = new TreeMap<>();
        jdbc.sql("SELECT release_id, revision, visibility FROM release WHERE generation_id = ?")
                .params(generation).query(rs -> {
                    out.put(rs.getString(1), rs.getInt(2) + "|" + rs.getString(3));
                });
        return out;
    }

    /** What the public endpoints serve: {@code id -> "revision|releaseId|canonical attributes"}. */
    public Map<String, String> publicView(long generation) {
        Map<String, String> out = new TreeMap<>();
        jdbc.sql("SELECT item_id, revision, release_id, attributes::text FROM public_item WHERE generation_id = ?")
                .params(generation).query(rs -> {
                    out.put(rs.getString(1), rs.getInt(2) + "|" + rs.getString(3) + "|"
                            + ExpectedProjection.canonical(rs.getString(4)));
                });
        return out;
    }

    public Map<String, String> publicItems(long generation) {
        Map<String, String> out = new TreeMap<>();
        jdbc.sql("SELECT item_id, revision, release_id FROM public_item WHERE generation_id = ?")
                .params(generation).query(rs -> {
                    out.put(rs.getString(1), rs.getInt(2) + "|" + rs.getString(3));
                });
        return out;
    }
}
