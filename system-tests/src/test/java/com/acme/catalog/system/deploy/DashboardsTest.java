package com.acme.catalog.system.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The dashboards of docs/grafana/: stable, unique UIDs and titles, unique panel ids, every panel with a query on
 * the Prometheus datasource variable, and together they cover the views (retention lag, live propagation,
 * rebuilds, completeness). Every query parses as PromQL ({@code promtool check rules} over them, when promtool is
 * installed); they are also run against a live Prometheus by bin/containers-test.sh.
 */
class DashboardsTest {

    static final Path DIR = Path.of("..", "docs", "grafana");
    /** UIDs are links operators keep: never change one. */
    static final Set<String> UIDS = Set.of("resolver-retention", "catalog-live-propagation", "catalog-rebuilds");

    @Test
    @SuppressWarnings("unchecked")
    void dashboardsHaveStableUidsAndQueryTheContractMetrics() throws IOException {
        Set<String> uids = new HashSet<>();
        StringBuilder exprs = new StringBuilder();
        List<Path> files;
        try (Stream<Path> s = Files.list(DIR)) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        for (Path f : files) {
            // JSON is YAML: no second parser needed
            Map<String, Object> d = new Yaml().load(Files.readString(f));
            assertThat(uids.add((String) d.get("uid"))).as("unique uid in " + f).isTrue();
            Set<Object> ids = new HashSet<>();
            for (Map<String, Object> p : (List<Map<String, Object>>) d.get("panels")) {
                assertThat(ids.add(p.get("id"))).as(f + " panel id " + p.get("id")).isTrue();
                if ("row".equals(p.get("type"))) {
                    continue;
                }
                List<Map<String, Object>> targets = (List<Map<String, Object>>) p.get("targets");
                assertThat(targets).as(f + " " + p.get("title")).isNotEmpty();
                for (Map<String, Object> t : targets) {
                    exprs.append(t.get("expr")).append('\n');
                    assertThat(String.valueOf(((Map<String, Object>) t.get("datasource")).get("uid")))
                            .isEqualTo("${datasource}");
                }
            }
        }
        assertThat(uids).containsExactlyInAnyOrderElementsOf(UIDS);
        for (String metric : List.of("product_apply_lag_events", "resolver_relay_delivered_events_total",
                "resolver_relay_failed_deliveries_total", "resolver_write_seconds_bucket", "product_rebuild_phase",
                "product_rebuild_load_rows_per_second", "product_rebuild_catchup_events_per_second",
                "product_completeness_state", "product_old_epoch_deliveries_total", "resolver_retention_blocked",
                // failover and rollback (docs/runbooks/failover.md), rebuild progress
                "resolver_history_rolled_back", "product_streams_rolled_back", "resolver_rollbacks_detected_total",
                "resolver_epoch_rotations_total", "resolver_unavailable_answers_total",
                "resolver_high_water_marks_recorded_timestamp_seconds", "product_rebuild_progress_rows_per_second",
                "product_rebuild_progress_events_per_second", "product_rebuild_progress_eta_seconds")) {
            assertThat(exprs.toString()).as("a panel queries " + metric).contains(metric);
        }
    }

    /** A panel over a metric no service registers shows "no data" exactly when an operator needs it. */
    @Test
    void everyPanelQueriesMetricsTheServicesRegister() throws IOException {
        Set<String> registered = ServiceMetrics.registered();
        assertThat(registered).contains("resolver_writes", "product_streams_rolled_back");
        for (PanelQuery q : panelQueries()) {
            assertThat(ServiceMetrics.unknown(q.expr(), registered)).as(q.file() + " '" + q.title() + "': "
                    + q.expr()).isEmpty();
        }
        assertThat(ServiceMetrics.unknown("rate(resolver_writes_total[5m]) + resolver_wrtes_total", registered))
                .as("the check itself").containsExactly("resolver_wrtes_total");
    }

    /** Grafana's variables, as bin/containers-test.sh substitutes them before it runs a panel's query. */
    private static final Map<String, String> VARIABLES = Map.of("$__rate_interval", "1m", "${__rate_interval}", "1m",
            "$__interval", "10s", "${__interval}", "10s", "$__range", "5m", "${tenant}", ".*", "$tenant", ".*",
            "${catalog}", ".*", "$catalog", ".*");

    @Test
    void everyPanelQueryIsValidPromQl() throws Exception {
        assumeTrue(PrometheusRulesTest.onPath("promtool"), "promtool not installed (Debian package prometheus): skipped");
        StringBuilder rules = new StringBuilder("groups:\n- name: dashboard-queries\n  rules:\n");
        int n = 0;
        for (PanelQuery q : panelQueries()) {
            String expr = q.expr();
            for (Map.Entry<String, String> v : VARIABLES.entrySet()) {
                expr = expr.replace(v.getKey(), v.getValue());
            }
            // one recording rule per query: promtool parses each and names the file and rule it fails in
            rules.append("  - record: dashboard_query_").append(++n).append("\n    expr: '")
                    .append(expr.replace("'", "''")).append("'\n");
        }
        Path file = Files.createTempFile("dashboard-queries", ".yml");
        try {
            Files.writeString(file, rules);
            assertThat(PrometheusRulesTest.run("promtool", "check", "rules", file.toAbsolutePath().toString()))
                    .contains("SUCCESS");
        } finally {
            Files.delete(file);
        }
    }

    /** One query of one panel of a dashboard of {@link #DIR}. */
    record PanelQuery(Path file, Object title, String expr) {
    }

    /** Every panel query of every dashboard, in file order. */
    @SuppressWarnings("unchecked")
    static List<PanelQuery> panelQueries() throws IOException {
        List<PanelQuery> queries = new java.util.ArrayList<>();
        try (Stream<Path> s = Files.list(DIR)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                Map<String, Object> d = new Yaml().load(Files.readString(f));
                for (Map<String, Object> p : (List<Map<String, Object>>) d.get("panels")) {
                    for (Map<String, Object> t : (List<Map<String, Object>>) p.getOrDefault("targets", List.of())) {
                        queries.add(new PanelQuery(f, p.get("title"), String.valueOf(t.get("expr"))));
                    }
                }
            }
        }
        return queries;
    }
}
