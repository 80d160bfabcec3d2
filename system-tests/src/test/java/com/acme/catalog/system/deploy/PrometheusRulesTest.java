package com.acme.catalog.system.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/prometheus/catalog-rules.yml: every alert has a runbook that exists and a firing and a non-firing case in
 * catalog-rules.test.yml; {@code promtool check rules} and {@code promtool test rules} pass (run when promtool is
 * installed: .ci/run installs the Debian package {@code prometheus}; elsewhere that part is skipped, said so).
 */
class PrometheusRulesTest {

    static final Path DIR = Path.of("..", "deploy", "prometheus");
    /** The issue's list: each has at least one alert. */
    static final Set<String> REQUIRED = Set.of("RetentionBlocked", "ConsumerLagGrowing", "LeaseExpiringSoon",
            "LeaseExpired", "ExportStuck", "RebuildStuck", "OldEpochDeliveries", "CompletenessBlocked",
            "CompletenessRetrying", "RelayDeliveryFailures", "WriteErrorRate");

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() throws IOException {
        Map<String, Object> doc = new Yaml().load(Files.readString(DIR.resolve("catalog-rules.yml")));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> g : (List<Map<String, Object>>) doc.get("groups")) {
            out.addAll((List<Map<String, Object>>) g.get("rules"));
        }
        return out;
    }

    @Test
    void everyAlertHasARunbookThatExistsAndTheIssuesAlertsAreThere() throws IOException {
        Set<String> alerts = new TreeSet<>();
        for (Map<String, Object> r : rules()) {
            if (r.containsKey("alert")) {
                alerts.add((String) r.get("alert"));
                @SuppressWarnings("unchecked")
                Map<String, String> annotations = (Map<String, String>) r.get("annotations");
                assertThat(annotations).as((String) r.get("alert")).containsKeys("summary", "runbook");
                assertThat(Path.of("..").resolve(annotations.get("runbook"))).as((String) r.get("alert")).exists();
                @SuppressWarnings("unchecked")
                Map<String, String> labels = (Map<String, String>) r.get("labels");
                assertThat(labels.get("severity")).isIn("warning", "critical");
            }
        }
        assertThat(alerts).containsAll(REQUIRED);
    }

    /** Every rule queries metrics the services register (a renamed meter would leave an alert that never fires). */
    @Test
    void everyRuleQueriesMetricsTheServicesRegister() throws IOException {
        Set<String> registered = ServiceMetrics.registered();
        for (Map<String, Object> r : rules()) {
            String name = String.valueOf(r.containsKey("alert") ? r.get("alert") : r.get("record"));
            assertThat(ServiceMetrics.unknown(String.valueOf(r.get("expr")), registered)).as(name).isEmpty();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasAFiringAndANonFiringCase() throws IOException {
        Map<String, Object> doc = new Yaml().load(Files.readString(DIR.resolve("catalog-rules.test.yml")));
        Set<String> firing = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (Map<String, Object> t : (List<Map<String, Object>>) doc.get("tests")) {
            for (Map<String, Object> a : (List<Map<String, Object>>) t.getOrDefault("alert_rule_test", List.of())) {
                List<?> expected = (List<?>) a.get("exp_alerts");
                (expected == null || expected.isEmpty() ? quiet : firing).add((String) a.get("alertname"));
            }
        }
        for (Map<String, Object> r : rules()) {
            if (r.containsKey("alert")) {
                assertThat(firing).as("a firing case of " + r.get("alert")).contains((String) r.get("alert"));
                assertThat(quiet).as("a non-firing case of " + r.get("alert")).contains((String) r.get("alert"));
            }
        }
    }

    @Test
    void promtoolChecksAndUnitTestsPass() throws Exception {
        assumeTrue(onPath("promtool"), "promtool not installed (Debian package prometheus): skipped");
        assertThat(run("promtool", "check", "rules", "catalog-rules.yml")).contains("SUCCESS");
        assertThat(run("promtool", "test", "rules", "catalog-rules.test.yml")).contains("SUCCESS");
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
        return out;
    }
}
