package com.acme.catalog.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.testsupport.ServiceProcess;
import com.acme.catalog.testsupport.TestDatabase;

/**
 * One pipeline the propagation scenario drives: a writing process, a receiving process and their two databases.
 * {@link Services} is ours (resolver → relay → product); {@link Floor} is the irreducible shape of the same hops
 * ({@code bench-floor}: two HTTP hops, two commits, one NOTIFY, nothing else). Both answer the same writes with the
 * same kind of answer, so one load generator and one observer measure both in one run.
 */
abstract class Pipeline implements AutoCloseable {

    static final String TOKENS = "op=operator;w=writer;r=relay;c=consumer";

    /** The product's inbox, where the resolver's relay delivers. */
    static final String DELIVERY_URL = "http://localhost:18092/v1/inbox/events";

    final String name;
    /** Replaced by {@link Services#restartResolver} (the same port and databases, a new process). */
    ServiceProcess writer;
    final ServiceProcess receiver;
    final TestDatabase writerDb;
    final TestDatabase receiverDb;
    final List<AutoCloseable> resources;

    Pipeline(String name, ServiceProcess writer, ServiceProcess receiver, TestDatabase writerDb,
            TestDatabase receiverDb, List<AutoCloseable> resources) {
        this.name = name;
        this.writer = writer;
        this.receiver = receiver;
        this.writerDb = writerDb;
        this.receiverDb = receiverDb;
        this.resources = resources;
    }

    /** URL of one single-change write (PUT, body {@code {"attributes":…}}) of item {@code item} of stream {@code s}. */
    abstract String itemUrl(int s, String item);

    /** URL of one multi-change write (POST, body {@code {"changes":[…]}}) of stream {@code s}. */
    abstract String transactionUrl(int s);

    /** A query on {@link #receiverDb} answering (stream index, applied position) per stream. */
    abstract String appliedSql(int streams);

    /** Service processes whose metrics the scenario scrapes for its stage timers (none for the floor). */
    abstract List<ServiceProcess> scraped();

    /** CPU time so far (ms) of the pipeline's processes and their databases' backends, by component. */
    Map<String, Long> cpu() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("writerJvm", ProcessCpu.millis(writer.pid()));
        m.put("receiverJvm", ProcessCpu.millis(receiver.pid()));
        m.put("writerDatabase", ProcessCpu.databaseBackendsMillis(writerDb));
        m.put("receiverDatabase", ProcessCpu.databaseBackendsMillis(receiverDb));
        return m;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    static Pipeline start(String name, int streams, HttpClient http) throws Exception {
        return switch (name) {
            case "services" -> Services.start(streams, http);
            case "floor" -> Floor.start();
            default -> throw new IllegalArgumentException("--pipelines are floor and services, got " + name);
        };
    }

    /** Resolver (relay on) and product on fresh databases, a consumer registered per stream, one write per stream. */
    static final class Services extends Pipeline {

        /** The resolver's control store (never restored with its database). */
        final TestDatabase controlDb;
        private final Map<String, String> resolverEnv;

        private Services(ServiceProcess resolver, ServiceProcess product, TestDatabase rdb, TestDatabase cdb,
                TestDatabase pdb, Map<String, String> resolverEnv, List<AutoCloseable> resources) {
            super("services", resolver, product, rdb, pdb, resources);
            this.controlDb = cdb;
            this.resolverEnv = Map.copyOf(resolverEnv);
        }

        static Services start(int streams, HttpClient http) throws Exception {
            // the streams exist before the product starts, so its start-up bootstrap of PRODUCT_STREAMS finds them
            StringBuilder configured = new StringBuilder();
            for (int s = 0; s < streams; s++) {
                configured.append(s == 0 ? "" : ",").append("bench/prop-").append(s);
            }
            return start(configured.toString(), resolver -> {
                for (int s = 0; s < streams; s++) {
                    send(http, "PUT", resolver.baseUrl() + "/v1/streams/bench/prop-" + s + "/items/warm", "w",
                            "{\"attributes\":{}}");
                    send(http, "POST", resolver.baseUrl() + "/v1/retention/consumers", "c",
                            "{\"consumerId\":\"product-1\",\"tenant\":\"bench\",\"catalog\":\"prop-" + s
                                    + "\",\"epoch\":1,\"deliveryUrl\":\"" + DELIVERY_URL + "\"}",
                            409);
                }
            });
        }

        /**
         * Resolver (relay on, delivering to the product's inbox) on fresh databases, then {@code beforeProduct}
         * with the running resolver, then the product with {@code PRODUCT_STREAMS=productStreams}.
         */
        static Services start(String productStreams, BeforeProduct beforeProduct) throws Exception {
            return start(productStreams, Map.of(), beforeProduct);
        }

        /** {@link #start(String, BeforeProduct)} with {@code env} added to both services' environments. */
        static Services start(String productStreams, Map<String, String> env, BeforeProduct beforeProduct)
                throws Exception {
            List<AutoCloseable> opened = new java.util.ArrayList<>();
            try {
                TestDatabase rdb = open(opened, TestDatabase.create("bench_prop_resolver"));
                TestDatabase cdb = open(opened, TestDatabase.create("bench_prop_control"));
                TestDatabase pdb = open(opened, TestDatabase.create("bench_prop_product"));
                Map<String, String> resolverEnv = new HashMap<>(ControlDatabase.env(cdb, Map.of(
                        "SPRING_DATASOURCE_URL", rdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", rdb.username(),
                        "RELAY_TOKEN", "r", "RELAY_ALLOWED_DELIVERY_URLS", "http://localhost:18092/",
                        "SECURITY_TOKENS", TOKENS)));
                resolverEnv.putAll(env);
                ServiceProcess resolver = open(opened, ServiceProcess.start("resolver-service", 18091, resolverEnv));
                beforeProduct.run(resolver);
                Map<String, String> productEnv = new HashMap<>(Map.of(
                        "SPRING_DATASOURCE_URL", pdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", pdb.username(),
                        "RESOLVER_URL", resolver.baseUrl(), "RESOLVER_TOKEN", "c",
                        "PRODUCT_DELIVERY_URL", DELIVERY_URL,
                        "PRODUCT_STREAMS", productStreams, "SECURITY_TOKENS", TOKENS));
                productEnv.putAll(env);
                ServiceProcess product = open(opened, ServiceProcess.start("product-service", 18092, productEnv));
                return new Services(resolver, product, rdb, cdb, pdb, resolverEnv, opened);
            } catch (Exception e) {
                closeAll(opened, e);
                throw e;
            }
        }

        /**
         * Stops the resolver (SIGTERM, a graceful stop), runs {@code whileStopped}, then starts a new resolver
         * process on the same port, databases and environment and waits until it is healthy.
         */
        void restartResolver(WhileStopped whileStopped) throws Exception {
            writer.close();
            whileStopped.run();
            writer = open(resources, ServiceProcess.start("resolver-service", 18091, resolverEnv));
        }

        @Override
        String itemUrl(int s, String item) {
            return writer.baseUrl() + "/v1/streams/bench/prop-" + s + "/items/" + item;
        }

        @Override
        String transactionUrl(int s) {
            return writer.baseUrl() + "/v1/streams/bench/prop-" + s + "/transactions";
        }

        @Override
        String appliedSql(int streams) {
            return """
                    SELECT substr(s.catalog, 6)::int, g.applied_position FROM product.serving_generation s
                      JOIN product.generation g ON g.generation_id = s.generation_id
                     WHERE s.tenant = 'bench' AND s.catalog LIKE 'prop-%'""";
        }

        @Override
        List<ServiceProcess> scraped() {
            return List.of(writer, receiver);
        }
    }

    /** bench-floor's app a (writes, NOTIFY, listener posting batches) and app b (one insert per batch). */
    static final class Floor extends Pipeline {

        private Floor(ServiceProcess a, ServiceProcess b, TestDatabase adb, TestDatabase bdb,
                List<AutoCloseable> resources) {
            super("floor", a, b, adb, bdb, resources);
        }

        static Floor start() throws Exception {
            List<AutoCloseable> opened = new java.util.ArrayList<>();
            try {
                TestDatabase adb = open(opened, TestDatabase.create("bench_floor_a"));
                TestDatabase bdb = open(opened, TestDatabase.create("bench_floor_b"));
                ServiceProcess b = open(opened, ServiceProcess.start("bench-floor", 18094, Map.of("FLOOR_ROLE", "b",
                        "SPRING_DATASOURCE_URL", bdb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", bdb.username(),
                        "SECURITY_TOKENS", TOKENS)));
                ServiceProcess a = open(opened, ServiceProcess.start("bench-floor", 18093, Map.of("FLOOR_ROLE", "a",
                        "SPRING_DATASOURCE_URL", adb.jdbcUrl(), "SPRING_DATASOURCE_USERNAME", adb.username(),
                        "FLOOR_INBOX_URL", b.baseUrl() + "/inbox", "RELAY_TOKEN", "r", "SECURITY_TOKENS", TOKENS)));
                return new Floor(a, b, adb, bdb, opened);
            } catch (Exception e) {
                closeAll(opened, e);
                throw e;
            }
        }

        @Override
        String itemUrl(int s, String item) {
            return writer.baseUrl() + "/items/prop-" + s + "/" + item;
        }

        @Override
        String transactionUrl(int s) {
            return writer.baseUrl() + "/streams/prop-" + s + "/transactions";
        }

        @Override
        String appliedSql(int streams) {
            return "SELECT s.i, coalesce((SELECT max(position) FROM floor_applied a WHERE a.stream = 'prop-' || s.i), 0)"
                    + " FROM generate_series(0, " + (streams - 1) + ") AS s(i)";
        }

        @Override
        List<ServiceProcess> scraped() {
            return List.of();
        }
    }

    /** What {@link Services#restartResolver} does while the resolver is stopped (a restore of its database). */
    @FunctionalInterface
    interface WhileStopped {
        void run() throws Exception;
    }

    /** A step between the resolver's start and the product's (the resolver is up, the product not yet). */
    @FunctionalInterface
    interface BeforeProduct {
        void run(ServiceProcess resolver) throws Exception;
    }

    private static <T extends AutoCloseable> T open(List<AutoCloseable> opened, T resource) {
        opened.add(resource);
        return resource;
    }

    private static void closeAll(List<AutoCloseable> opened, Exception cause) {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
    }

    static String send(HttpClient http, String method, String url, String token, String body, int... alsoOk)
            throws Exception {
        HttpResponse<String> res = call(http, method, url, token, body);
        boolean ok = res.statusCode() / 100 == 2;
        for (int code : alsoOk) {
            ok |= res.statusCode() == code;
        }
        if (!ok) {
            throw new IllegalStateException(method + " " + url + " answered " + res.statusCode() + ": " + res.body());
        }
        return res.body();
    }

    /**
     * One request with {@code token} (none when null) and a JSON {@code body} (none when null), whatever its
     * status; {@code headers} are name, value pairs.
     */
    static HttpResponse<String> call(HttpClient http, String method, String url, String token, String body,
            String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
