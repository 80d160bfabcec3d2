package com.acme.catalog.product.rebuild;

import com.acme.catalog.product.inbox.EventApplier;
import com.acme.catalog.product.projection.GenerationCursor;

import org.springframework.stereotype.Component;

/**
 * The cutover's tail (docs/design.md step 7): the retained events the resolver committed since the last catch-up page,
 * read page by page (chain-verified) and applied to the locked shadow with the live apply code until a page reaches
 * the head. Runs in the caller's transaction, under the serving lock the cutover holds.
 */
@Component
class TailApplier {

    private final RetainedPages pages;
    private final EventApplier applier;
    private final RebuildLedger ledger;

    TailApplier(RetainedPages pages, EventApplier applier, RebuildLedger ledger) {
        this.pages = pages;
        this.applier = applier;
        this.ledger = ledger;
    }

    /** @return the shadow's cursor at the resolver's head as the last page showed it */
    GenerationCursor applyToHead(CaughtUp caughtUp, GenerationCursor shadow) {
        Pinned p = caughtUp.shadow().pinned();
        long events = caughtUp.events();
        while (true) {
            RetainedPages.PreparedPage page = pages.read(p, shadow.chainPosition(), shadow.chainDigest());
            if (!page.events().isEmpty()) {
                shadow = applier.apply(shadow, page.events()).cursor();
                events += page.events().size();
                ledger.caughtUp(caughtUp, shadow.appliedPosition(), page.events().size(), events);
            }
            if (page.reachesHead()) {
                return shadow;
            }
        }
    }
}
