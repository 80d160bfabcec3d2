package com.acme.catalog.fault;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
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
 * Two resolver and two product instances from their jars, with the relay's deliveries and the product's calls to the
 * resolver going through a {@link FaultProxy} each. Two PostgreSQL servers of the suite's own: the resolver database
 * on a primary with a streaming standby ({@link ReplicatedPostgres}, reached by a multi-host URL, so it can fail
 * over), the product and control databases on a second server that never fails over (the control store must not
 * fail over with the resolver: its high-water marks are how a lost tail is found). Instances coordinate only
 * through the databases.
 */
final class Cluster implements AutoCloseable {

    static final String TOKENS = "op=operator;w=writer;r=relay;c=consumer";
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String TENANT = "acme";
    /** Published events older than this may be pruned: seconds, so pruning races with pins and progress. */
    static final int MIN_AGE_SECONDS = 3;
    /** The product's rebuild lease TTL: short, so a stalled link lets it expire mid-rebuild (database clock). */
    static final int REBUILD_LEASE_TTL_SECONDS = 4;
    /** Test pauses of the product's rebuild (docs/rebuild.md), so faults can be aimed at LOADING and a cutover. */
    static final long LOADING_PAUSE_MS = 9000;
    static final long CUTOVER_PAUSE_MS = 2000;
    static final String RESOLVER_JSON = "{\"retention\":{\"min-age\":\"PT" + MIN_AGE_SECONDS + "S\","
            + "\"prune\":{\"interval\":\"PT1S\",\"batch-size\":200},\"status\":{\"refresh-interval\":\"PT2S\"}}}";
    static final String PRODUCT_JSON = "{\"product\":{\"progress\":{\"resync-interval\":\"PT2S\"},"
            + "\"rebuild\":{\"lease-ttl\":\"PT" + REBUILD_LEASE_TTL_SECONDS + "S\",\"retry-max-delay\":\"PT4S\","
            + "\"test-pause\":{\"LOADING\":\"" + LOADING_PAUSE_MS + "ms\",\"CUTTING_OVER\":\"" + CUTOVER_PAUSE_MS
            + "ms\"}}}}";

    /** the product and control databases: never fails over */
    final FaultPostgres pg;
    /** the resolver database: a primary and a streaming standby */
    final ReplicatedPostgres rpg;
    final List<String> catalogs;
    /**
     * per stream, the epoch the harness's operator side works in (leases, exports, pages, the audit consumer):
     * raised by the rotation fault ({@link Faults.Kind#EPOCH_ROTATION}); 1 until then
     */
    final Map<String, Long> epochs = new java.util.concurrent.ConcurrentHashMap<>();
    final int[] resolverPorts = {FaultPostgres.freePort(), FaultPostgres.freePort()};
    final int[] productPorts = {FaultPostgres.freePort(), FaultPostgres.freePort()};
    final Service[] resolvers = new Service[2];
    final Service[] products = new Service[2];
    final FaultProxy toProduct;
    final FaultProxy toResolver;
    final Path objects;
    final List<Path> logs = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    Cluster(FaultPostgres pg, ReplicatedPostgres rpg, List<String> catalogs) throws Exception {
        this.pg = pg;
        this.rpg = rpg;
        this.catalogs = List.copyOf(catalogs);
        this.objects = Files.createTempDirectory("fault-objects");
        this.toProduct = new FaultProxy("resolver->product", List.of(productPorts[0], productPorts[1]));
        this.toResolver = new FaultProxy("product->resolver", List.of(resolverPorts[0], resolverPorts[1]));
        rpg.createDatabase("resolver");
        for (String db : List.of("product", "control")) {
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
        env.put("SPRING_DATASOURCE_URL", rpg.jdbcUrl("resolver", "resolver-" + i));
        env.put("SPRING_DATASOURCE_USERNAME", "postgres");
        env.put("CONTROL_DATASOURCE_URL", pg.jdbcUrl("control", "resolver-" + i + "-control"));
        env.put("CONTROL_DATASOURCE_USERNAME", "postgres");
        env.put("RELAY_TOKEN", "r");
        env.put("RELAY_ALLOWED_DELIVERY_URLS", toProduct.url() + "/");
        env.put("OBJECT_STORE_URI", "file:" + objects.toAbsolutePath());
        env.put("SECURITY_TOKENS", TOKENS);
        env.put("SPRING_APPLICATION_JSON", RESOLVER_JSON);
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
        env.put("SPRING_APPLICATION_JSON", PRODUCT_JSON);
        products[i] = null;
        products[i] = Service.start("product-service", "product-" + i, productPorts[i], env);
        logs.add(products[i].log);
    }

    /**
     * The pruning audit, in the resolver database the suite owns: an AFTER DELETE statement trigger on the outbox
     * records, in the deleting transaction, every deleted row (its wire and digest, so the checker still sees the
     * whole history) with the lowest live lease pin and the lowest consumer durable position of its (stream, epoch)
     * that transaction sees. The pruner holds the stream's retention lock while it deletes, and every lease and
     * consumer change takes that lock, so what the trigger sees is what bounded the prune.
     */
    void installPruneAudit() throws Exception {
        try (Connection c = connect("resolver"); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS fault_audit");
            s.execute("""
                    CREATE TABLE IF NOT EXISTS fault_audit.pruned (
                        tenant text NOT NULL, catalog text NOT NULL, epoch bigint NOT NULL, position bigint NOT NULL,
                        wire text NOT NULL, chain_digest text NOT NULL,
                        min_live_pin bigint, min_durable bigint, consumers integer NOT NULL,
                        txid bigint NOT NULL DEFAULT txid_current(), pruned_at timestamptz NOT NULL DEFAULT clock_timestamp())
                    """);
            s.execute("""
                    CREATE OR REPLACE FUNCTION fault_audit.record_prune() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                      INSERT INTO fault_audit.pruned (tenant, catalog, epoch, position, wire, chain_digest,
                                                      min_live_pin, min_durable, consumers)
                      SELECT g.tenant, g.catalog, g.epoch, g.position, g.wire, g.chain_digest,
                             (SELECT min(l.pin) FROM resolver.retention_lease l
                               WHERE l.tenant = g.tenant AND l.catalog = g.catalog AND l.epoch = g.epoch
                                 AND l.released_at IS NULL AND l.expires_at > clock_timestamp()),
                             (SELECT min(k.durable_position) FROM resolver.retention_consumer k
                               WHERE k.tenant = g.tenant AND k.catalog = g.catalog AND k.epoch = g.epoch),
                             (SELECT count(*) FROM resolver.retention_consumer k
                               WHERE k.tenant = g.tenant AND k.catalog = g.catalog AND k.epoch = g.epoch)
                        FROM gone g;
                      RETURN NULL;
                    END $$
                    """);
            s.execute("DROP TRIGGER IF EXISTS fault_audit_prune ON resolver.outbox");
            s.execute("CREATE TRIGGER fault_audit_prune AFTER DELETE ON resolver.outbox REFERENCING OLD TABLE AS gone "
                    + "FOR EACH STATEMENT EXECUTE FUNCTION fault_audit.record_prune()");
        }
    }

    /** The server holding {@code database}: the resolver's current primary, or the one that never fails over. */
    FaultPostgres server(String database) {
        return database.equals("resolver") ? rpg.primary() : pg;
    }

    /** A harness connection to {@code database}, on the server holding it now. */
    Connection connect(String database) throws java.sql.SQLException {
        return server(database).connect(database);
    }

    /** @return the epoch of {@code catalog} the harness's operator side works in */
    long epoch(String catalog) {
        return epochs.getOrDefault(catalog, 1L);
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
