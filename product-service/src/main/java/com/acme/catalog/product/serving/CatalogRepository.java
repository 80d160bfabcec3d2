package com.acme.catalog.product.serving;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Public reads of a stream's serving generation. */
@Repository
class CatalogRepository {

    private static final String SQL_SERVING = """
            SELECT s.generation_id, g.epoch FROM serving_generation s JOIN generation g USING (generation_id)
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
        return jdbc.sql(SQL_SERVING).params(s.tenant(), s.catalog())
                .query((rs, n) -> new Serving(rs.getLong(1), rs.getLong(2))).optional();
    }

    /** The serving generation of a stream and the epoch it holds. */
    record Serving(long generationId, long epoch) {
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
