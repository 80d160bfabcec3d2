package com.acme.catalog.product.streams;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import com.acme.catalog.contracts.StreamId;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.streams} ({@code PRODUCT_STREAMS}): the streams this product serves without being told again, as
 * {@code tenant/catalog} entries and subscriptions by pattern, {@code tenant/*} (every catalog of the tenant) or
 * {@code *} (every stream the product's token may read). The product subscribes to each pattern at the resolver, so
 * streams created later are served without a restart; only matching streams may be started by their first delivery
 * ({@code inbox.StreamAdmission}). Public for the inbox.
 *
 * @param streams comma-separated entries; empty: only streams a rebuild bootstrapped are served
 */
@ConfigurationProperties("product")
public record ProductStreamsProperties(@DefaultValue("") String streams) {

    /** The pattern entry that matches every stream, and the catalog part that matches every catalog. */
    public static final String ANY = "*";

    public ProductStreamsProperties {
        streams = streams == null ? "" : streams;
        parse(streams, new ArrayList<>(), new LinkedHashSet<>()); // a malformed entry fails the start
    }

    /** @return the {@code tenant/catalog} entries, in their order */
    public List<StreamId> list() {
        List<StreamId> exact = new ArrayList<>();
        parse(streams, exact, new LinkedHashSet<>());
        return exact;
    }

    /** @return the tenants subscribed by {@code tenant/*}, or {@code *} for every tenant; in their order */
    public Set<String> tenantPatterns() {
        Set<String> patterns = new LinkedHashSet<>();
        parse(streams, new ArrayList<>(), patterns);
        return patterns;
    }

    /** Whether {@code stream} is listed or matches a pattern. */
    public boolean matches(StreamId stream) {
        return matcher().test(stream);
    }

    /** @return {@link #matches}, with the entries parsed once: for a caller that tests many streams */
    public Predicate<StreamId> matcher() {
        Set<String> patterns = tenantPatterns();
        Set<StreamId> listed = Set.copyOf(list());
        return stream -> patterns.contains(ANY) || patterns.contains(stream.tenant()) || listed.contains(stream);
    }

    private static void parse(String streams, List<StreamId> exact, Set<String> patterns) {
        for (String part : streams.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            if (p.equals(ANY)) {
                patterns.add(ANY);
                continue;
            }
            int slash = p.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("PRODUCT_STREAMS entries are tenant/catalog, tenant/* or *, not '"
                        + p + "'");
            }
            String tenant = p.substring(0, slash);
            String catalog = p.substring(slash + 1);
            if (catalog.equals(ANY)) {
                StreamId.requirePart("tenant", tenant);
                patterns.add(tenant);
            } else {
                exact.add(new StreamId(tenant, catalog));
            }
        }
    }
}
