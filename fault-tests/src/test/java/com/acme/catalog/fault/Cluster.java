package com.acme.catalog.fault;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two resolver and two product instances from their jars, all on the suite's own cluster (one resolver, one
 * product and one control database: instances coordinate only through the database), with the relay's deliveries
 * and the product's calls to the resolver going through a {@link FaultProxy} each.
 */
final class Cluster implements AutoCloseable {

    static final String TOKENS = "op=operator;w=writer;r=relay;c=consumer";
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String TENANT = "acme";

    final FaultPostgres pg;
    final List<String> catalogs;
    final int[] resolverPorts = {FaultPostgres.freePort(), FaultPostgres.freePort()};
    final int[] productPorts = {FaultPostgres.freePort(), FaultPostgres.freePort()};
    final Service[] resolvers = new Service[2];
    final Service[] products = new Service[2];
    final FaultProxy toProduct;
    final FaultProxy toResolver;
    final Path objects;
    final List<Path> logs = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    Cluster(FaultPostgres pg, List<String> catalogs) throws Exception {
        this.pg = pg;
        this.catalogs = List.copyOf(catalogs);
        this.objects = Files.createTempDirectory("fault-objects");
        this.toProduct = new FaultProxy("resolver->product", List.of(productPorts[0], productPorts[1]));
        this.toResolver = new FaultProxy("product->resolver", List.of(resolverPorts[0], resolverPorts[1]));
        for (String db : List.of("resolver", "product", "control")) {
            pg.createDatabase(db);
        }
    }

    void startResolvers() throws Exception {
        parallel(() -> startResolver(0), () -> startResolver(1));
    }

    void startProducts() throws Exception {
        parallel(() -> startProduct(0), () -> startProduct(1));
    }

    void startResolver(int i) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("SPRING_DATASOURCE_URL", pg.jdbcUrl("resolver", "resolver-" + i));
        env.put("SPRING_DATASOURCE_USERNAME", "postgres");
        env.put("CONTROL_DATASOURCE_URL", pg.jdbcUrl("control", "resolver-" + i + "-control"));
        env.put("CONTROL_DATASOURCE_USERNAME", "postgres");
        env.put("RELAY_TOKEN", "r");
        env.put("RELAY_ALLOWED_DELIVERY_URLS", toProduct.url() + "/");
        env.put("OBJECT_STORE_URI", "file:" + objects.toAbsolutePath());
        env.put("SECURITY_TOKENS", TOKENS);
        resolvers[i] = null;
        resolvers[i] = Service.start("resolver-service", "resolver-" + i, resolverPorts[i], env);
        logs.add(resolvers[i].log);
    }

    void startProduct(int i) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("SPRING_DATASOURCE_URL", pg.jdbcUrl("product", "product-" + i));
        env.put("SPRING_DATASOURCE_USERNAME", "postgres");
        env.put("CONTROL_DATASOURCE_URL", pg.jdbcUrl("control", "product-" + i + "-control"));
        env.put("CONTROL_DATASOURCE_USERNAME", "postgres");
        env.put("RESOLVER_URL", toResolver.url());
        env.put("RESOLVER_TOKEN", "c");
        env.put("PRODUCT_CONSUMER_ID", "product-1");
        env.put("PRODUCT_INSTANCE_ID", "product-" + i);
        env.put("PRODUCT_DELIVERY_URL", deliveryUrl());
        env.put("PRODUCT_STREAMS", String.join(",", catalogs.stream().map(c -> TENANT + "/" + c).toList()));
        env.put("SECURITY_TOKENS", TOKENS);
        env.put("OBJECT_STORE_URI", "file:" + objects.toAbsolutePath());
        env.put("SPRING_APPLICATION_JSON", "{\"product\":{\"progress\":{\"resync-interval-ms\":2000}}}");
        products[i] = null;
        products[i] = Service.start("product-service", "product-" + i, productPorts[i], env);
        logs.add(products[i].log);
    }

    String deliveryUrl() {
        return toProduct.url() + "/v1/inbox/events";
    }

    String resolverUrl(int i) {
        return "http://127.0.0.1:" + resolverPorts[i];
    }

    String productUrl(int i) {
        return "http://127.0.0.1:" + productPorts[i];
    }

    /** Registers the product (consumer product-1) for every stream, delivering through the proxy. */
    void registerProduct() throws Exception {
        for (String c : catalogs) {
            Response r = call("POST", resolverUrl(0) + "/v1/retention/consumers", "c",
                    "{\"consumerId\":\"product-1\",\"tenant\":\"" + TENANT + "\",\"catalog\":\"" + c
                            + "\",\"epoch\":1,\"deliveryUrl\":\"" + deliveryUrl() + "\"}");
            if (r.status() / 100 != 2) {
                throw new IllegalStateException("registration of " + c + " answered " + r.status() + ": " + r.body());
            }
        }
    }

    Response call(String method, String url, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(res.statusCode(), res.body());
    }

    JsonNode get(String url) throws Exception {
        Response r = call("GET", url, "op", null);
        if (r.status() != 200) {
            throw new IllegalStateException("GET " + url + " answered " + r.status() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    static void parallel(Step... steps) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(steps.length);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (Step s : steps) {
                fs.add(ex.submit(() -> {
                    s.run();
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            ex.shutdownNow();
        }
    }

    interface Step {
        void run() throws Exception;
    }

    @Override
    public void close() throws Exception {
        for (Service p : products) {
            if (p != null) {
                p.stop();
            }
        }
        for (Service p : resolvers) {
            if (p != null) {
                p.stop();
            }
        }
        Service.destroyAll();
        toProduct.close();
        toResolver.close();
    }

    record Response(int status, String body) {
    }
}
