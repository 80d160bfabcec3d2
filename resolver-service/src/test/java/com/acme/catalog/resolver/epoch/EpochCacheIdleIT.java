package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * The epoch refresh follows activity: a stream no write or delivery asked for during {@code control.hold-idle} is let
 * go, so thousands of quiet streams cost the per-second refresh nothing, and its next write reads the store once and
 * is held again. The scheduled refresh is off here (an hour); the test drives it.
 */
@TestPropertySource(properties = {"control.refresh-interval=PT1H", "control.grace=PT1H", "control.hold-idle=PT1S",
        "control.high-water-mark-interval=PT1H", "control.rollback-check-interval=PT1H"})
class EpochCacheIdleIT extends EpochIT {

    @Autowired
    EpochCache cache;

    @Test
    void aQuietStreamIsLetGoAndItsNextWriteReadsTheStoreAgain() throws Exception {
        assertThat(putItem("acme", "quiet", "a").status()).isEqualTo(200);
        assertThat(putItem("acme", "busy", "a").status()).isEqualTo(200);
        cache.refresh();
        assertThat(cache.heldCount()).as("both just written").isEqualTo(2);

        Thread.sleep(1200);
        assertThat(putItem("acme", "busy", "b").status()).isEqualTo(200);
        cache.refresh();
        assertThat(cache.heldCount()).as("the quiet stream is let go, the busy one kept").isEqualTo(1);

        Response next = putItem("acme", "quiet", "b");
        assertThat(next.status()).as(next.raw()).isEqualTo(200);
        assertThat(next.number("position")).isEqualTo(2);
        assertThat(next.number("epoch")).isEqualTo(1);
        assertThat(cache.heldCount()).as("held again by its write").isEqualTo(2);
    }
}
