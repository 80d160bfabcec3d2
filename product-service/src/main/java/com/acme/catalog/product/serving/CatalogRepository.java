package com.acme.catalog.product.serving;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Public reads of a stream's serving generation. */
@Repository
class CatalogRepository {

    /**
     * The serving pointer with what decides whether it may be served, in one snapshot: the generation's epoch and
     * head, the stream's current epoch as learnt ({@code stream_epoch}) and the resolver's rolled back head
     * ({@code stream_rollback}), both written by any instance's stream sweep.
     */
    private static final String SQL_SERVING = """
            SELECT s.generation_id, g.epoch, g.applied_position, g.chain_position, g.chain_digest,
                   g.projection_version, coalesce(e.epoch, 0) AS known_epoch,
                   r.epoch AS rolled_back_epoch, r.cursor AS rolled_back_cursor, r.chain_digest AS rolled_back_digest
              FROM serving_generation s JOIN generation g USING (generation_id)
              LEFT JOIN stream_epoch e ON e.tenant = s.tenant AND e.catalog = s.catalog
              LEFT JOIN stream_rollback r ON r.tenant = s.tenant AND r.catalog = s.catalog
             WHERE s.tenant = ? AND s.catalog = ?
            """;
    private static final String SQL_ITEM = """
            SELECT item_id, revision, release_id, attributes::text AS attributes, 0::real AS score
              FROM public_item WHERE generation_id = ? AND item_id = ?
            """;
    private static final String SQL_SEARCH = """
            SELECT p.item_id, p.revision, p.release_id, p.attributes::text AS attributes,
                   ts_rank(p.document, q.query) AS score
              FROM public_item p, websearch_to_tsquery('english', ?) AS q(query)
             WHERE p.generation_id = ? AND p.document @@ q.query
             ORDER BY score DESC, p.item_id
             LIMIT ?
            """;

    private final JdbcClient jdbc;

    CatalogRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Serving> servingGeneration(StreamId s) {
        return jdbc.sql(SQL_SERVING).params(s.tenant(), s.catalog()).query((rs, n) -> {
            long rolledBackEpoch = rs.getLong("rolled_back_epoch");
            RolledBack rolledBack = rs.wasNull() ? null : new RolledBack(rolledBackEpoch,
                    rs.getLong("rolled_back_cursor"), rs.getString("rolled_back_digest"));
            return new Serving(rs.getLong("generation_id"), rs.getLong("epoch"), rs.getLong("applied_position"),
                    rs.getLong("chain_position"), rs.getString("chain_digest"), rs.getLong("known_epoch"),
                    rolledBack, rs.getInt("projection_version"));
        }).optional();
    }

    /**
     * The serving generation of a stream, the epoch and head it holds, and what the stream sweep learnt of the
     * stream.
     *
     * @param knownEpoch the stream's current epoch as learnt (0: none yet)
     * @param rolledBack the resolver's restored head when it reports the stream rolled back, else null
     * @param projectionVersion the projection version the generation was built with
     */
    record Serving(long generationId, long epoch, long appliedPosition, long chainPosition, String chainDigest,
            long knownEpoch, RolledBack rolledBack, int projectionVersion) {

        /**
         * Whether the generation holds history the resolver reports lost: it is of the rolled back epoch and not at
         * exactly the restored head (a generation there, same position and digest, holds only what still exists).
         */
        boolean holdsLostHistory() {
            return rolledBack != null && rolledBack.epoch() == epoch && !(appliedPosition == rolledBack.cursor()
                    && chainPosition == rolledBack.cursor() && chainDigest.equals(rolledBack.chainDigest()));
        }
    }

    /** The resolver's head of a rolled back epoch ({@code stream_rollback}). */
    record RolledBack(long epoch, long cursor, String chainDigest) {
    }

    Optional<PublicItem> item(long generation, String itemId) {
        return jdbc.sql(SQL_ITEM).params(generation, itemId).query(PublicItem.class).optional();
    }

    List<PublicItem> search(long generation, String query, int limit) {
        return jdbc.sql(SQL_SEARCH).params(query, generation, limit).query(PublicItem.class).list();
    }

    /** An item as publicly released; {@code attributes} is JSON text, {@code score} 0 outside search. */
    record PublicItem(String itemId, int revision, String releaseId, String attributes, float score) {
    }
}
