package com.acme.catalog.resolver.evidence;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code evidence.*} settings; docs/evidence.md lists them for operators.
 *
 * @param maxBytes  the largest evidence body intake accepts (413 {@code PAYLOAD_TOO_LARGE} beyond, nothing stored);
 *                  it replaces the general request cap on the intake route only
 * @param keyPrefix object-store key prefix of artifacts ({@code <prefix>/<tenant>/<artifactId>}); private to the
 *                  resolver, and never inside the exports' prefix (nor they inside it)
 * @param retention the evidence retention job
 */
@ConfigurationProperties("evidence")
record EvidenceProperties(@DefaultValue("20MB") DataSize maxBytes, @DefaultValue("evidence") String keyPrefix,
        @DefaultValue Retention retention) {

    EvidenceProperties {
        if (maxBytes.toBytes() < 1) {
            throw new IllegalArgumentException("evidence.max-bytes must be at least 1 byte");
        }
        if (keyPrefix.isBlank() || keyPrefix.startsWith("/") || keyPrefix.endsWith("/") || keyPrefix.contains("..")) {
            throw new IllegalArgumentException("evidence.key-prefix must be a relative key without a trailing /");
        }
    }

    /** Whether {@code prefix} (another capability's key prefix) and this one name overlapping keys. */
    boolean overlaps(String prefix) {
        return (prefix + "/").startsWith(keyPrefix + "/") || (keyPrefix + "/").startsWith(prefix + "/");
    }

    /**
     * @param enabled      whether the job runs on its schedule ({@code POST /v1/evidence-retention/run} always works)
     * @param interval     pause between two scheduled runs
     * @param window       how long an unreferenced artifact is kept after its last activity (intake of its bytes,
     *                     an extraction run citing it) before it expires
     * @param batchSize    artifacts read per page while checking objects and looking for expiry candidates
     * @param checkObjects whether each run looks up every live artifact's object in the store (one HEAD each) to
     *                     flag missing ones; off, nothing is flagged
     */
    record Retention(@DefaultValue("true") boolean enabled, @DefaultValue("PT1H") Duration interval,
            @DefaultValue("P30D") Duration window, @DefaultValue("500") int batchSize,
            @DefaultValue("true") boolean checkObjects) {

        Retention {
            if (window.isNegative()) {
                throw new IllegalArgumentException("evidence.retention.window must not be negative");
            }
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("evidence.retention.interval must be positive");
            }
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("evidence.retention.batch-size must be 1..10000");
            }
        }
    }
}
