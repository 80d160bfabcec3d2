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

    void pinRetention(Attempt a) {
        a.epoch = resolver.epoch(a.stream);
        epochs.learn(a.stream, a.epoch);
        long ttlSeconds = properties.leaseTtl().toSeconds();
        String leaseId = resolver.createLease(a.stream, a.epoch, ttlSeconds, "product-rebuild-" + a.id);
        a.leaseId = leaseId;
        rebuilds.lease(a.id, leaseId);
        a.keeper = new LeaseKeeper(() -> resolver.renewLease(leaseId, ttlSeconds),
                properties.leaseTtl().toMillis() / 3);
    }
}
