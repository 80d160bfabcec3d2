package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import com.acme.catalog.resolver.support.ResolverIT;

import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.web.client.RestClient;

/** Base of the epoch capability's ITs: the resolver's database, the control store's, and small write helpers. */
abstract class EpochIT extends ResolverIT {

    @Autowired
    protected JdbcClient jdbc;
    @Autowired
    private Environment env;
    private JdbcClient control;

    /**
     * A client that, unlike the default one, never repeats a request answered 503 by itself (Apache HttpClient
     * re-sends idempotent requests after a 503): these tests count exactly what each request did.
     */
    @Override
    protected RestClient client(String token) {
        RestClient.Builder b = RestClient.builder().baseUrl("http://localhost:" + port)
                .requestFactory(new HttpComponentsClientHttpRequestFactory(
                        HttpClients.custom().disableAutomaticRetries().build()))
                .defaultStatusHandler(HttpStatusCode::isError, (req, res) -> { });
        if (token != null) {
            b.defaultHeader("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    /** A client of the control store's database (schema {@code control}). */
    protected JdbcClient control() {
        if (control == null) {
            DriverManagerDataSource ds = new DriverManagerDataSource(env.getProperty("control.datasource.url"),
                    env.getProperty("control.datasource.username"), env.getProperty("control.datasource.password"));
            ds.setSchema("control");
            control = JdbcClient.create(ds);
        }
        return control;
    }

    protected Response putItem(String tenant, String catalog, String itemId) {
        return put("/v1/streams/" + tenant + "/" + catalog + "/items/" + itemId, "w",
                Map.of("attributes", Map.of("name", itemId)));
    }

    protected void writeItems(String tenant, String catalog, int n) {
        for (int i = 0; i < n; i++) {
            Response r = putItem(tenant, catalog, "sku-" + i);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
        }
    }

    protected Response maintenance(boolean enabled) {
        Response r = post("/v1/admin/maintenance", "op", Map.of("enabled", enabled));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r;
    }

    protected Response rotate(String tenant, String catalog, String reason) {
        return post("/v1/epochs/" + tenant + "/" + catalog + "/rotate", "op", Map.of("reason", reason));
    }

    protected long outboxRows(String tenant, String catalog) {
        return jdbc.sql("SELECT count(*) FROM outbox WHERE tenant = ? AND catalog = ?").params(tenant, catalog)
                .query(Long.class).single();
    }

    protected long highWaterMark(String tenant, String catalog, long epoch) {
        return control().sql("SELECT coalesce(max(position), -1) FROM stream_high_water_mark "
                + "WHERE tenant = ? AND catalog = ? AND epoch = ?").params(tenant, catalog, epoch).query(Long.class)
                .single();
    }

    /** The scraped value of a metric line starting with {@code prefix}, or null when there is none. */
    protected Double metric(String prefix) {
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        return text.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).orElse(null);
    }
}
