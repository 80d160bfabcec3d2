package com.acme.catalog.product.recovery;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.rollbacks.*}: how soon the product learns that the resolver found a stream's history rolled back
 * (docs/epochs.md "What readers see after a rollback"; docs/configuration.md lists the keys).
 *
 * @param poll how often the resolver's rolled back streams are listed ({@code GET /v1/streams?rolledBack=true}):
 *             the longest a public reader is served a lost tail after the resolver detected the rollback (plus one
 *             request). An ISO-8601 duration; the full sweep ({@code product.epochs.poll-interval}) learns it too.
 */
@ConfigurationProperties("product.rollbacks")
record RollbackProperties(@DefaultValue("PT2S") Duration poll) {

    RollbackProperties {
        if (poll.isNegative() || poll.isZero()) {
            throw new IllegalArgumentException("product.rollbacks.poll must be positive, not " + poll);
        }
    }
}
