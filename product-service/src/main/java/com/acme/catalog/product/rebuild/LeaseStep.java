package com.acme.catalog.product.rebuild;

import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.stereotype.Component;

/**
 * docs/design.md step 2 (pin retention), the product's side: learns the stream's epoch from the resolver and pins its
 * retention with a resolver lease for the whole attempt, kept alive by the attempt's one {@link LeaseKeeper} until
 * {@link RetireStep} releases it.
 */
@Component
class LeaseStep {

    private final ResolverClient resolver;
    private final StreamEpochs epochs;
    private final RebuildRepository rebuilds;
    private final RebuildProperties properties;

    LeaseStep(ResolverClient resolver, StreamEpochs epochs, RebuildRepository rebuilds,
            RebuildProperties properties) {
        this.resolver = resolver;
        this.epochs = epochs;
        this.rebuilds = rebuilds;
        this.properties = properties;
    }

    Pinned pinRetention(Started s) {
        long epoch = resolver.epoch(s.stream());
        epochs.learn(s.stream(), epoch);
        long ttlSeconds = properties.leaseTtl().toSeconds();
        String leaseId = resolver.createLease(s.stream(), epoch, ttlSeconds, "product-rebuild-" + s.id());
        rebuilds.lease(s.id(), leaseId);
        return new Pinned(s, epoch, leaseId, new LeaseKeeper(() -> resolver.renewLease(leaseId, ttlSeconds),
                properties.leaseTtl().toMillis() / 3));
    }
}
