package com.acme.catalog.product.recovery;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.StreamId;

import org.springframework.stereotype.Component;

/**
 * When the stream sweep last found a serving generation equal to the resolver's head (same epoch, applied position
 * and chain digest there): a verification as good as a recovery cycle's, made for every quiet stream at once
 * without writing a row per stream. In memory (one entry per served stream); after a restart the first sweep
 * refills it. Completeness reports it as the stream's last successful verification while the generation is still
 * at the verified position.
 */
@Component
public class SweepVerifications {

    /** A verification: the generation was at {@code position} of {@code epoch}, the resolver's head, at {@code at}. */
    public record Verified(long epoch, long position, Instant at) {
    }

    private final Map<StreamId, Verified> latest = new ConcurrentHashMap<>();

    void record(StreamId stream, long epoch, long position, Instant at) {
        latest.put(stream, new Verified(epoch, position, at));
    }

    void forget(StreamId stream) {
        latest.remove(stream);
    }

    /** @return the sweep's last verification of {@code stream}, if it made one since the product started */
    public Optional<Verified> of(StreamId stream) {
        return Optional.ofNullable(latest.get(stream));
    }
}
