package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The keeper renews periodically while open, goes on after a failed renewal, and stops when closed. */
class LeaseKeeperTest {

    @Test
    void renewsWhileOpenAndStopsWhenClosed() throws Exception {
        AtomicInteger renewals = new AtomicInteger();
        try (LeaseKeeper keeper = new LeaseKeeper(() -> {
            if (renewals.incrementAndGet() == 1) {
                throw new IllegalStateException("410 from the resolver");
            }
        }, 20)) {
            Thread.sleep(300);
        }
        int atClose = renewals.get();
        assertThat(atClose).as("renewals in 300 ms every 20 ms, the first failing").isGreaterThanOrEqualTo(4);
        Thread.sleep(100);
        assertThat(renewals.get()).isEqualTo(atClose);
    }
}
