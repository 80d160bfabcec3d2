package com.acme.catalog.resolver.stream;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link AbstractIdempotentWriteIT} with write coalescing on and every leader waiting for companions, so writes held
 * behind the cursor row share physical transactions.
 */
@TestPropertySource(properties = {"resolver.write.coalescing.enabled=true",
        "resolver.write.coalescing.max-wait=5ms", "resolver.write.coalescing.wait-above-rate=0"})
class IdempotentWriteIT extends AbstractIdempotentWriteIT {

    @Override
    boolean coalesced() {
        return true;
    }
}
