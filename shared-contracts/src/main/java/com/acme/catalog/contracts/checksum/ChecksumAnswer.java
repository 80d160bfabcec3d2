package com.acme.catalog.contracts.checksum;

import java.util.Map;
import java.util.Objects;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

/**
 * The answer of the resolver's {@code GET …/state-checksum} and the product's {@code GET …/projection-checksum}:
 * {@code {"epoch","position","profile","tables":{name:{"rows","sha256"}}}}, the tables in the profile's order.
 * Two answers of the same profile at the same position compare equal when the two copies hold the same state.
 */
public record ChecksumAnswer(long epoch, long position, String profile, Map<String, TableChecksum> tables) {

    public ChecksumAnswer {
        if (epoch < 1 || position < 0) {
            throw new IllegalArgumentException("epoch must be >= 1 and position >= 0");
        }
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(tables, "tables"); // kept as given: the caller's map holds the profile's order
    }

    public static ChecksumAnswer of(long epoch, long position, ChecksumProfile profile,
            Map<String, TableChecksum> tables) {
        return new ChecksumAnswer(epoch, position, profile.profileName(), tables);
    }
}
