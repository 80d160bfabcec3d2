package com.acme.catalog.product.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.product.inbox.StreamAdmission;
import com.acme.catalog.testsupport.FreshDatabase;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * Base of product integration tests: the whole service on a random port over its own fresh database, progress
 * reports going to the JVM's {@link FakeResolver}, and one token per role ({@code op}, {@code w}, {@code r},
 * {@code r-acme} = relay limited to tenant acme, {@code c}).
 */
@FreshDatabase
@org.springframework.context.annotation.Import(ProductIT.AnyStreamOnDelivery.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "security.tokens=op=operator;w=writer;r=relay;r-acme=relay@acme;c=consumer",
        "product.resolver-token=resolver-secret", "product.consumer-id=product-test",
        "product.progress.initial-backoff=PT0.02S", "product.progress.max-backoff=PT0.2S",
        "product.recovery.enabled=false"})
public abstract class ProductIT {

    /** {@code product_old_epoch_deliveries_total} of this instance (docs/metrics.md: not per stream). */
    protected static final String OLD_EPOCH_DELIVERIES = "product_old_epoch_deliveries_total{application=\"product\"}";

    protected static final FakeResolver RESOLVER = FakeResolver.shared();

    /**
     * Most product ITs deliver to streams of their own naming without listing them all in PRODUCT_STREAMS: here a
     * first delivery starts any stream unless a class sets {@code test.inbox.any-stream=false} (the product's own
     * rule, {@link StreamAdmission}, is tested by {@code StreamAdmissionIT}).
     */
    @org.springframework.boot.test.context.TestConfiguration(proxyBeanMethods = false)
    public static class AnyStreamOnDelivery {
        @org.springframework.context.annotation.Bean
        @org.springframework.context.annotation.Primary
        StreamAdmission anyStreamOnDelivery(com.acme.catalog.product.streams.ProductStreamsProperties streams,
                com.acme.catalog.product.resolver.ResolverClient resolver,
                @org.springframework.beans.factory.annotation.Value("${test.inbox.any-stream:true}") boolean any) {
            return new StreamAdmission(streams, resolver) {
                @Override
                public boolean mayStartOnDelivery(com.acme.catalog.contracts.StreamId stream) {
                    return any || super.mayStartOnDelivery(stream);
                }

                @Override
                public void confirm(com.acme.catalog.contracts.StreamId stream,
                        com.acme.catalog.product.projection.IntegrationEvent last) {
                    if (!any) {
                        super.confirm(stream, last);
                    }
                }
            };
        }
    }

    @LocalServerPort
    protected int port;
    @Autowired
    protected JdbcClient jdbc;

    @DynamicPropertySource
    static void resolverUrl(DynamicPropertyRegistry registry) {
        registry.add("product.resolver-url", RESOLVER::baseUrl);
    }

    private final Map<String, RestClient> clients = new ConcurrentHashMap<>();

    /** A client that never throws on 4xx/5xx, so tests assert statuses themselves; one per token, reused. */
    protected RestClient client(String token) {
        return clients.computeIfAbsent(token == null ? "" : token, this::newClient);
    }

    private RestClient newClient(String token) {
        return TestClients.of(port, token);
    }

    /** POSTs {@code {"events":[…]}} built from the exact delivered texts, as the relay does. */
    protected ResponseEntity<JsonNode> deliver(String token, List<String> delivered) {
        return postRaw(token, "{\"events\":[" + String.join(",", delivered) + "]}");
    }

    protected ResponseEntity<JsonNode> postRaw(String token, String body) {
        return client(token).post().uri("/v1/inbox/events").contentType(MediaType.APPLICATION_JSON).body(body)
                .retrieve().toEntity(JsonNode.class);
    }

    protected ResponseEntity<JsonNode> get(String path) {
        return client(null).get().uri(path).retrieve().toEntity(JsonNode.class);
    }

    /**
     * The value of the scraped sample whose name and labels are exactly {@code sample} (e.g.
     * {@code product_old_epoch_deliveries_total{application="product"}}), 0 when there is none. The per-instance
     * counters are shared by a context's tests: compare values before and after.
     */
    protected double scraped(String sample) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return text.lines().filter(l -> l.startsWith(sample + " ")).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).orElse(0.0);
    }
}
