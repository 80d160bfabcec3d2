package com.acme.catalog.product.resolver;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code product.*} settings of the calls to the resolver (docs/rebuild.md and the README's variables list them for
 * operators).
 *
 * @param resolverUrl   base URL of the resolver ({@code RESOLVER_URL})
 * @param resolverToken bearer sent with every call ({@code RESOLVER_TOKEN}); blank sends no Authorization header
 * @param consumerId    the id this product registers and reports progress under ({@code PRODUCT_CONSUMER_ID})
 * @param deliveryUrl   where the resolver's relay delivers to, sent when registering ({@code PRODUCT_DELIVERY_URL})
 * @param rebuild       the rebuild and recovery calls (leases, exports, pages, registration, epoch, chain digest)
 * @param progress      the progress reporter's calls
 */
@ConfigurationProperties("product")
public record ResolverClientProperties(String resolverUrl, @DefaultValue("") String resolverToken, String consumerId,
        String deliveryUrl, @DefaultValue RebuildCalls rebuild, @DefaultValue ProgressCalls progress) {

    public ResolverClientProperties {
        require(resolverUrl, "product.resolver-url");
        require(consumerId, "product.consumer-id");
        require(deliveryUrl, "product.delivery-url");
        resolverToken = resolverToken == null ? "" : resolverToken;
        rebuild = rebuild == null ? new RebuildCalls(Duration.ofSeconds(30)) : rebuild;
        progress = progress == null ? new ProgressCalls(Duration.ofSeconds(5)) : progress;
    }

    /** @param requestTimeout connect and read timeout of each call ({@code product.rebuild.request-timeout}) */
    public record RebuildCalls(@DefaultValue("PT30S") Duration requestTimeout) {
    }

    /** @param requestTimeout connect and read timeout of each report ({@code product.progress.request-timeout}) */
    public record ProgressCalls(@DefaultValue("PT5S") Duration requestTimeout) {
    }

    private static void require(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " must be set");
        }
    }
}
