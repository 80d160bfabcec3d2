package com.acme.catalog.resolver.stream;

import org.springframework.test.context.TestPropertySource;

/** {@link AbstractIdempotentWriteIT} with write coalescing off: every write its own physical transaction. */
@TestPropertySource(properties = "resolver.write.coalescing.enabled=false")
class IdempotentWriteUncoalescedIT extends AbstractIdempotentWriteIT {

    @Override
    boolean coalesced() {
        return false;
    }
}
