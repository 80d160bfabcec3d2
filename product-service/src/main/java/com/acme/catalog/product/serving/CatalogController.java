package com.acme.catalog.product.serving;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.platform.db.Snapshots;
import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.epoch.EpochProperties;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.serving.CatalogRepository.PublicItem;
import com.acme.catalog.product.serving.CatalogRepository.Serving;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Public catalog reads (no token): an item as its latest PUBLIC release names it, and full-text search over
 * public items. Each read resolves the serving pointer and reads that generation in one read-only snapshot.
 * A generation of an epoch older than the stream's current one is stale (docs/epochs.md "The product"):
 * {@code product.epochs.stale-serving=refuse} (default) answers 503 {@code STREAM_FENCED};
 * {@code serve} answers it with a {@code Warning: 110} header. A generation holding history the resolver reports
 * rolled back is refused the same way, with 503 {@code HISTORY_ROLLED_BACK} (docs/epochs.md "What readers see after
 * a rollback").
 */
@Tag(name = "Catalog", description = "Public reads of released items")
@RestController
@RequestMapping("/v1/catalog/{tenant}/{catalog}")
class CatalogController {

    static final int DEFAULT_LIMIT = 10;

    private final CatalogRepository catalog;
    private final TransactionTemplate readOnly;
    private final int maxLimit;
    private final StreamEpochs epochs;
    private final boolean serveStale;

    CatalogController(CatalogRepository catalog, PlatformTransactionManager transactions, StreamEpochs epochs,
            ServingProperties properties, EpochProperties epochProperties) {
        this.epochs = epochs;
        this.serveStale = epochProperties.staleServing() == EpochProperties.StaleServing.SERVE;
        this.catalog = catalog;
        this.readOnly = Snapshots.readOnly(transactions);
        this.maxLimit = properties.maxSearchLimit();
    }

    @Operation(operationId = "catalogItem", summary = "Read a released item",
            description = "The item as last released PUBLIC; 404 if it is not publicly released. No token.")
    @GetMapping("/items/{itemId}")
    CatalogAnswers.Item item(@PathVariable String tenant, @PathVariable("catalog") String catalogId,
            @PathVariable String itemId, HttpServletResponse response) {
        StreamId s = new StreamId(tenant, catalogId);
        AggregateIds.require("itemId", itemId);
        PublicItem item = readOnly.execute(status -> catalog.servingGeneration(s)
                .flatMap(g -> catalog.item(fresh(s, g, response), itemId)).orElse(null));
        if (item == null) {
            throw new ApiException(ProblemCode.NOT_FOUND, "item " + itemId + " is not publicly released in " + s);
        }
        return new CatalogAnswers.Item(s.tenant(), s.catalog(), item.itemId(), item.revision(), item.releaseId(),
                item.attributes());
    }

    @Operation(operationId = "catalogSearch", summary = "Search released items",
            description = "Full-text search over publicly released items. No token.")
    @GetMapping("/search")
    CatalogAnswers.Search search(@PathVariable String tenant, @PathVariable("catalog") String catalogId,
            @RequestParam String q, @RequestParam(required = false) Integer limit, HttpServletResponse response) {
        StreamId s = new StreamId(tenant, catalogId);
        if (q.isBlank() || q.length() > 256) {
            throw new ApiException(ProblemCode.INVALID_BODY, "q must be 1-256 characters");
        }
        int n = limit == null ? DEFAULT_LIMIT : limit;
        if (n < 1) {
            throw new ApiException(ProblemCode.INVALID_BODY, "limit must be >= 1");
        }
        int capped = Math.min(n, maxLimit);
        List<PublicItem> found = readOnly.execute(status -> catalog.servingGeneration(s)
                .map(g -> catalog.search(fresh(s, g, response), q, capped)).orElse(List.of()));
        List<CatalogAnswers.Hit> hits = new ArrayList<>(found.size());
        for (PublicItem item : found) {
            hits.add(new CatalogAnswers.Hit(item.itemId(), item.score(), item.revision(), item.releaseId(),
                    item.attributes()));
        }
        return new CatalogAnswers.Search(hits, capped);
    }

    /**
     * The generation to read, if it may be served: refused (503) or marked stale with a {@code Warning} header
     * <ul>
     *   <li>when the stream's current epoch is above the generation's ({@code STREAM_FENCED}). The epoch is the
     *       highest of this instance's and the database's ({@code stream_epoch}, read in the same snapshot), so a
     *       read right after maintenance-off sees the epoch learnt before it on any instance;</li>
     *   <li>when the resolver reports the generation's epoch rolled back and the generation is not at the restored
     *       head: it holds the lost tail ({@code HISTORY_ROLLED_BACK}).</li>
     * </ul>
     */
    private long fresh(StreamId s, Serving g, HttpServletResponse response) {
        long current = Math.max(epochs.current(s), g.knownEpoch());
        if (current > g.epoch()) {
            String why = "%s: the served data is of epoch %d, but the current epoch is %d (the resolver's history was "
                    .formatted(s, g.epoch(), current) + "restored); the product is rebuilding from the new epoch";
            if (!serveStale) {
                throw new ApiException(ProblemCode.STREAM_FENCED, why);
            }
            response.setHeader("Warning", "110 product \"stale: epoch " + g.epoch() + " superseded by epoch "
                    + current + "\"");
        } else if (g.holdsLostHistory()) {
            String why = ("%s: the resolver reports the history of epoch %d rolled back to position %d, and the "
                    + "served data holds history up to position %d that no longer exists there; the product serves "
                    + "the stream again once it was rebuilt from the restored history, or from a new epoch after the "
                    + "operator rotates it").formatted(s, g.epoch(), g.rolledBack().cursor(), g.appliedPosition());
            if (!serveStale) {
                throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, why);
            }
            response.setHeader("Warning", "110 product \"stale: the history of epoch " + g.epoch()
                    + " was rolled back at the resolver\"");
        }
        // every answer reads one generation in one snapshot; the header names the projection version it was built
        // with (docs/product-projections.md), so a reader can tell an answer from before a projection upgrade's
        // cutover from one after it
        response.setHeader(PROJECTION_VERSION_HEADER, Integer.toString(g.projectionVersion()));
        return g.generationId();
    }

    /** The response header naming the projection version of the generation an answer was read from. */
    static final String PROJECTION_VERSION_HEADER = "Projection-Version";
}
