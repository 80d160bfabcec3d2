package com.acme.catalog.resolver.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.json.JsonMapper;

/** {@code resolver.metrics.per-tenant=true}: the write meters are one set per tenant, with no catalog label. */
@TestPropertySource(properties = "resolver.metrics.per-tenant=true")
class PerTenantMetricsIT extends ResolverIT {

    @Autowired
    StreamWriter writer;

    @Test
    void writeMetersCarryTheTenantAndNeverTheCatalog() {
        for (StreamId s : List.of(new StreamId("pt-a", "one"), new StreamId("pt-a", "two"),
                new StreamId("pt-b", "one"))) {
            writer.writeAll(s, List.of(List.of(ChangeParser.upsertItem("a",
                    JsonMapper.builder().build().readTree("{\"attributes\":{}}")))));
        }
        String text = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        List<String> writes = text.lines().filter(l -> l.startsWith("resolver_writes_total{")
                && l.contains("outcome=\"committed\"")).toList();
        assertThat(writes).anyMatch(l -> l.contains("tenant=\"pt-a\"") && l.endsWith(" 2.0"))
                .anyMatch(l -> l.contains("tenant=\"pt-b\"") && l.endsWith(" 1.0"))
                .allMatch(l -> l.contains("tenant=\"") && !l.contains("catalog="));
        assertThat(text.lines().filter(l -> l.startsWith("resolver_write_seconds_bucket{")))
                .isNotEmpty().allMatch(l -> l.contains("tenant=\"") && !l.contains("catalog="));
    }
}
