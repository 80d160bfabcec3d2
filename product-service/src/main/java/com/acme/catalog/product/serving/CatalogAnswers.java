package com.acme.catalog.product.serving;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The public catalog's answers. {@code attributes} is the item's stored JSON text ({@code jsonb} rendered by
 * PostgreSQL, so always one valid JSON value), written into the answer as it is: the same JSON value a parse and
 * re-serialisation would write, without the parse on every read. The OpenAPI description calls it an object (as a
 * String it would be described as a JSON string).
 */
final class CatalogAnswers {

    private CatalogAnswers() {
    }

    /** {@code GET /v1/catalog/{tenant}/{catalog}/items/{itemId}}: the item as its latest PUBLIC release names it. */
    record Item(String tenant, String catalog, String itemId, int revision, String releaseId,
            @JsonRawValue @Schema(type = "object", types = "object") String attributes) {
    }

    /** {@code GET /v1/catalog/{tenant}/{catalog}/search}: the hits, best first, and the limit honoured. */
    record Search(List<Hit> hits, int limit) {

        Search {
            hits = List.copyOf(hits);
        }
    }

    /** One search hit: an item as in {@link Item}, with its rank. */
    record Hit(String itemId, float score, int revision, String releaseId,
            @JsonRawValue @Schema(type = "object", types = "object") String attributes) {
    }
}
