package com.acme.catalog.platform.metrics;

import com.acme.catalog.contracts.StreamId;

import io.micrometer.core.instrument.Tags;

/**
 * The tags of a meter that counts or times the work of many streams (docs/metrics.md "Metrics and cardinality"):
 * none, one meter per instance; or, with {@code resolver.metrics.per-tenant} / {@code product.metrics.per-tenant},
 * the stream's {@code tenant}. Never its {@code catalog}: a deployment has thousands of streams, and a histogram per
 * stream is ~70 series.
 */
public final class TenantTags {

    private static final TenantTags PER_INSTANCE = new TenantTags(false);
    private static final TenantTags BY_TENANT = new TenantTags(true);

    private final boolean perTenant;

    private TenantTags(boolean perTenant) {
        this.perTenant = perTenant;
    }

    /** @return {@link #byTenant} when {@code perTenant} (a service's {@code *.metrics.per-tenant}), else {@link #perInstance} */
    public static TenantTags from(boolean perTenant) {
        return perTenant ? byTenant() : perInstance();
    }

    /** @return tags that never name a tenant (one meter per instance) */
    public static TenantTags perInstance() {
        return PER_INSTANCE;
    }

    /** @return tags that name the stream's tenant (one meter per tenant) */
    public static TenantTags byTenant() {
        return BY_TENANT;
    }

    /** @return whether meters are one per tenant; otherwise there is one per instance, {@link #of} is empty */
    public boolean isPerTenant() {
        return perTenant;
    }

    /** @return the tags for the work of {@code stream}: empty, or {@code tenant} alone */
    public Tags of(StreamId stream) {
        return perTenant ? Tags.of("tenant", stream.tenant()) : Tags.empty();
    }
}
