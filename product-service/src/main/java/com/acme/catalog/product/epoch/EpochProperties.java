package com.acme.catalog.product.epoch;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;

/**
 * {@code product.epochs.*}: how the product learns each stream's current epoch and what public reads of a stale
 * generation answer (docs/epochs.md "The product"; docs/configuration.md lists the keys). Public for the recovery
 * worker's epoch poller and for public serving.
 *
 * @param poll         how often the current epoch of every served stream is read from the resolver
 * @param reload       how often this instance reloads the epochs other instances learnt
 * @param staleServing what public reads of a stream whose serving generation is of an older epoch answer
 */
@ConfigurationProperties("product.epochs")
public record EpochProperties(
        @Name("poll-interval") @DefaultValue("PT5S") Duration poll,
        @Name("reload-interval") @DefaultValue("PT2S") Duration reload,
        @DefaultValue("refuse") StaleServing staleServing) {

    /** {@code refuse}: 503 {@code STREAM_FENCED}; {@code serve}: the stale data, with a {@code Warning: 110} header. */
    public enum StaleServing { REFUSE, SERVE }

    public EpochProperties {
        positive(poll, "poll-interval");
        positive(reload, "reload-interval");
    }

    private static void positive(Duration d, String key) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("product.epochs." + key + " must be positive, not " + d);
        }
    }
}
