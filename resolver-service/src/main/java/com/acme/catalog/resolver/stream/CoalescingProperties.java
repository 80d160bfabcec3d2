package com.acme.catalog.resolver.stream;

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
 */
@ConfigurationProperties("resolver.write.coalescing")
record CoalescingProperties(@DefaultValue("true") boolean enabled, @DefaultValue("64") int maxTransactions,
        @DefaultValue("500") int maxEvents, @DefaultValue("4194304") long maxBytes) {

    CoalescingProperties {
        if (maxTransactions < 1 || maxEvents < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("resolver.write.coalescing bounds must be at least 1, got "
                    + maxTransactions + " transactions, " + maxEvents + " events, " + maxBytes + " bytes");
        }
    }
}
