package com.acme.catalog.resolver.stream;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code resolver.write.coalescing.*}: joining concurrent writes of one stream into one physical transaction
 * (docs/writes.md). Each bound caps one physical transaction; a single write larger than a bound still goes alone.
 *
 * @param enabled         whether concurrent writes of a stream share physical transactions
 * @param maxTransactions most logical transactions per physical transaction
 * @param maxEvents       most events (changes) per physical transaction
 * @param maxBytes        most request bytes (as the clients sent them) per physical transaction
 * @param maxWait         how long a leader may wait for more writes of its stream before committing (group commit
 *                        with a bounded wait); zero never waits
 * @param waitAboveRate   the leader waits only while its stream is busy: its recent write rate (writes per second,
 *                        from a moving average of the gaps between arrivals) is at least this, and its writes overlap
 *                        (the last physical transaction carried several, or several are queued); so a quiet stream's
 *                        write, or a lone client's sequential writes, start at once; zero waits always
 */
@ConfigurationProperties("resolver.write.coalescing")
record CoalescingProperties(@DefaultValue("true") boolean enabled, @DefaultValue("64") int maxTransactions,
        @DefaultValue("500") int maxEvents, @DefaultValue("4194304") long maxBytes,
        @DefaultValue("10ms") Duration maxWait, @DefaultValue("100") int waitAboveRate) {

    CoalescingProperties {
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("resolver.write.coalescing.max-wait must be between 0 and 1s, got "
                    + maxWait);
        }
        if (waitAboveRate < 0) {
            throw new IllegalArgumentException("resolver.write.coalescing.wait-above-rate must be at least 0, got "
                    + waitAboveRate);
        }
        if (maxTransactions < 1 || maxEvents < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("resolver.write.coalescing bounds must be at least 1, got "
                    + maxTransactions + " transactions, " + maxEvents + " events, " + maxBytes + " bytes");
        }
    }
}
