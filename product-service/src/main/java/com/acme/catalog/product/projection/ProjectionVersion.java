package com.acme.catalog.product.projection;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The projection version this build of the product derives generations with (docs/runbooks/projection-upgrade.md).
 * Raise {@link #CURRENT} in the same change as anything that changes the projection's tables or derivations (a column
 * of the public view, a search-document rule, how an event is applied): every generation records the version it was
 * built with, an instance whose version is newer than a stream's serving generation's rebuilds the stream in the
 * background, and an instance whose version is older never rebuilds a newer generation back nor writes into it.
 *
 * <p>{@code product.projection.version} overrides the number for upgrade tests only, so that one build can act as
 * two builds of different versions on one database. It is no deployment setting: a deployment that set it would
 * claim derivations its code does not have.
 */
@Component
public class ProjectionVersion {

    /** This build's projection version. Raise it whenever the projection's tables or derivations change. */
    public static final int CURRENT = 1;

    private final int version;

    public ProjectionVersion(@Value("${product.projection.version:" + CURRENT + "}") int version) {
        if (version < 1) {
            throw new IllegalArgumentException("product.projection.version must be >= 1, was " + version);
        }
        this.version = version;
    }

    /** @return the version this instance builds generations with */
    public int current() {
        return version;
    }

    /** @return whether a generation of {@code generationVersion} was built by a newer version than this instance's */
    public boolean isOlderThan(int generationVersion) {
        return version < generationVersion;
    }
}
