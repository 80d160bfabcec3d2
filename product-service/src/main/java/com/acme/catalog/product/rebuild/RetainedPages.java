package com.acme.catalog.product.rebuild;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.product.inbox.DeliveryParser;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.stereotype.Component;

/**
 * docs/design.md step 6 (retained events), the product's side, for the catch-up and the cutover: reads the page of
 * events after a position under the attempt's lease and epoch ({@link Pinned}), verifies its chain and parses its
 * events. A 410 is {@link ResolverClient.GoneException} (restart from a new export).
 */
@Component
class RetainedPages {

    /** A page, its chain verified from {@code digestAtAfter}, its events parsed. */
    record PreparedPage(EventPage page, String digestAtAfter, List<IntegrationEvent> events) {

        String digestThrough() {
            return page.chainDigestThrough();
        }

        /** @return whether the page reaches the resolver's head: no page follows it */
        boolean reachesHead() {
            return page.through() >= page.head();
        }
    }

    private final ResolverClient resolver;
    private final DeliveryParser parser;
    private final int pageLimit;

    RetainedPages(ResolverClient resolver, DeliveryParser parser, RebuildProperties properties) {
        this.resolver = resolver;
        this.parser = parser;
        this.pageLimit = properties.pageLimit();
    }

    /**
     * Fetches the page after {@code after}, verifies its chain from {@code digestAtAfter} and parses it.
     *
     * @throws com.acme.catalog.contracts.ApiException {@code CHAIN_BROKEN} when the page does not chain
     */
    PreparedPage read(Pinned p, long after, String digestAtAfter) {
        EventPage page = resolver.events(p.stream(), after, p.leaseId(), p.epoch(), pageLimit);
        List<EventWire.Split> splits = page.verify(digestAtAfter);
        List<IntegrationEvent> events = new ArrayList<>(splits.size());
        for (EventWire.Split split : splits) {
            events.add(parser.parseWire(split.wire(), split.chainDigest()));
        }
        return new PreparedPage(page, digestAtAfter, events);
    }
}
