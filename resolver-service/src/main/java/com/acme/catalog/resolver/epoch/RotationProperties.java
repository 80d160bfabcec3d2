package com.acme.catalog.resolver.epoch;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code rotation.*}: fleet epoch rotations ({@code POST /v1/epochs/rotations}, docs/epochs.md "Fleet rotation").
 *
 * @param enabled      whether this instance drives rotation jobs (any instance may; off only for tests and tools)
 * @param batchSize    streams rotated per transaction of the resolver's database and per control-store statement
 * @param claimTtl     how long a driver's claim of a job lasts without a batch renewing it: how long a job whose
 *                     driver died waits before another instance resumes it
 * @param pollInterval how often each instance looks for a running job nobody drives
 */
@ConfigurationProperties("rotation")
record RotationProperties(@DefaultValue("true") boolean enabled, @DefaultValue("500") int batchSize,
        @DefaultValue("PT15S") Duration claimTtl, @DefaultValue("PT2S") Duration pollInterval) {

    /** Most streams in one batch: its statements carry one array element per stream. */
    static final int MAX_BATCH = 5000;

    RotationProperties {
        if (batchSize < 1 || batchSize > MAX_BATCH) {
            throw new IllegalArgumentException("rotation.batch-size must be 1 to " + MAX_BATCH);
        }
        for (Duration d : new Duration[] {claimTtl, pollInterval}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("rotation.claim-ttl and rotation.poll-interval must be positive");
            }
        }
    }
}
