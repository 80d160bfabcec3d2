package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * A gap punched into rows an incremental read already verified (only outside tampering does that) is reported
 * after the next full scan, {@code retention.status.full-scan-interval} after the previous one, and from then on.
 */
@TestPropertySource(properties = "retention.status.full-scan-interval=PT1S")
class RetentionStatusFullScanIT extends AbstractRetentionIT {

    @Autowired
    private RetentionStatusReader reader;

    @Test
    void aRowDeletedByHandInsideTheVerifiedPrefixShowsAsAGapAfterTheNextFullScan() throws InterruptedException {
        StreamId s = new StreamId("acme", "full-gap");
        write(s, 20);
        publishThrough(s, 20);
        assertThat(reader.read(s, null).blockedBy()).isEmpty();
        assertThat(reader.read(s, null).ripeThrough()).isEqualTo(20);

        jdbc.sql("DELETE FROM outbox WHERE tenant = 'acme' AND catalog = 'full-gap' AND position = 10").update();
        Thread.sleep(1100);
        RetentionStatus afterFull = reader.read(s, null);
        assertThat(afterFull.blockedBy()).containsExactly(new Blocker(Blocker.Kind.GAP, null, 10));
        assertThat(afterFull.retainedEvents()).isEqualTo(19);
        assertThat(afterFull.ripeThrough()).isEqualTo(9);

        publishThrough(s, write(s, 3)); // incremental reads keep reporting it
        RetentionStatus next = reader.read(s, null);
        assertThat(next.blockedBy()).containsExactly(new Blocker(Blocker.Kind.GAP, null, 10));
        assertThat(next.retainedEvents()).isEqualTo(22);
        assertThat(next).usingRecursiveComparison().ignoringFields("observedAt")
                .isEqualTo(reader.readFull(s, null));
    }
}
