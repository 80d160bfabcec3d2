package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** docs/grafana/retention-dashboard.json is a well-formed dashboard whose panels query the contract's metrics. */
class RetentionDashboardTest {

    static final Path DASHBOARD = Path.of("..", "docs", "grafana", "retention-dashboard.json");

    @Test
    void dashboardHasThePanelsTheIssueAsksForOverContractMetrics() throws Exception {
        JsonNode d = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
        assertThat(d.path("uid").stringValue()).isNotBlank();
        assertThat(d.path("schemaVersion").asInt()).isPositive();
        List<String> titles = new ArrayList<>();
        StringBuilder exprs = new StringBuilder();
        Set<Integer> ids = new HashSet<>();
        for (JsonNode p : d.path("panels")) {
            assertThat(ids.add(p.path("id").asInt())).as("unique panel id %s", p.path("id")).isTrue();
            JsonNode grid = p.path("gridPos");
            assertThat(grid.path("x").asInt() + grid.path("w").asInt()).isLessThanOrEqualTo(24);
            assertThat(grid.path("h").asInt()).isPositive();
            if (p.path("type").stringValue().equals("row")) {
                continue;
            }
            titles.add(p.path("title").stringValue());
            assertThat(p.path("targets")).as(p.path("title").stringValue()).isNotEmpty();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("refId").stringValue()).isNotBlank();
                exprs.append(t.path("expr").stringValue()).append('\n');
            }
        }
        assertThat(titles).anyMatch(t -> t.startsWith("Retention lag per stream"))
                .anyMatch(t -> t.startsWith("Blocked retention"))
                .anyMatch(t -> t.startsWith("Consumer lag"))
                .anyMatch(t -> t.startsWith("Lease expiry"));
        for (String metric : List.of("resolver_stream_position", "resolver_outbox_pruned_through",
                "resolver_retention_retained_events", "resolver_retention_blocked", "resolver_consumer_lag_events",
                "resolver_leases_active", "resolver_leases_expired_total", "resolver_outbox_pruned_events_total",
                "resolver_retention_retained_bytes", "resolver_retention_retained_bytes_all_streams",
                "resolver_retention_retained_bytes_budget")) {
            // a whole name: the per-instance counters are queried without a selector
            assertThat(exprs.toString()).as("a panel queries " + metric)
                    .containsPattern(Pattern.quote(metric) + "(?![a-z_])");
        }
        List<String> variables = new ArrayList<>();
        d.path("templating").path("list").forEach(v -> variables.add(v.path("name").stringValue()));
        assertThat(variables).contains("datasource", "tenant", "catalog");
    }
}
