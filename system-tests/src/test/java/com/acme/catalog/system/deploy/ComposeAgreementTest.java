package com.acme.catalog.system.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml (run by users with Docker, never here) and bin/containers-test.sh (run here with podman)
 * describe the same deployment: the same service images built from the same contexts, the same environment
 * variables (each one the service really reads), the same ports, the image's own health check, and Prometheus
 * scraping the same targets from the same configuration file.
 */
class ComposeAgreementTest {

    static final Path ROOT = Path.of("..");
    /** Service name in compose → image name (without registry and tag) and build context. */
    static final Map<String, String> SERVICES = Map.of("resolver", "resolver-service", "product", "product-service");
    /** Variables only the container test sets: it binds to loopback only (host networking). */
    static final Set<String> TEST_ONLY = Set.of("SERVER_ADDRESS");
    /**
     * Variables read by libraries rather than by our configuration files: Spring Boot binds {@code SERVER_*} and
     * {@code SPRING_*} itself; the AWS SDK's default credentials chain reads the keys.
     */
    static final Set<String> LIBRARY_READ = Set.of("SERVER_PORT", "SERVER_ADDRESS", "SPRING_DATASOURCE_URL",
            "SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");

    @SuppressWarnings("unchecked")
    static Map<String, Object> compose() throws IOException {
        return (Map<String, Object>) new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> service(String name) throws IOException {
        return (Map<String, Object>) ((Map<String, Object>) compose().get("services")).get(name);
    }

    @SuppressWarnings("unchecked")
    static Set<String> composeEnv(String name) throws IOException {
        return new TreeSet<>(((Map<String, Object>) service(name).get("environment")).keySet());
    }

    static String script() throws IOException {
        return Files.readString(ROOT.resolve("bin/containers-test.sh"));
    }

    /** The -e NAME=… of one container's podman run in the container test, the shared `common` ones included. */
    static Set<String> testEnv(String image) throws IOException {
        String s = script();
        Set<String> names = new TreeSet<>(envNames(between(s, "common=(", ")")));
        String run = between(s, "run \"$PREFIX-" + SERVICES.entrySet().stream()
                .filter(e -> e.getValue().equals(image)).findFirst().orElseThrow().getKey() + "\"",
                "\"localhost/catalog/" + image + ":$TAG\"");
        names.addAll(envNames(run));
        return names;
    }

    static String between(String s, String from, String to) {
        int a = s.indexOf(from);
        assertThat(a).as("the container test contains %s", from).isNotNegative();
        int b = s.indexOf(to, a + from.length());
        assertThat(b).as("the container test contains %s after %s", to, from).isPositive();
        return s.substring(a + from.length(), b);
    }

    static Set<String> envNames(String text) {
        Matcher m = Pattern.compile("-e ([A-Z][A-Z0-9_]*)=").matcher(text);
        Set<String> out = new TreeSet<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** Placeholders of the service's application.yml: the variables it reads through our configuration. */
    static Set<String> configured(String module) throws IOException {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)")
                .matcher(Files.readString(ROOT.resolve(module + "/src/main/resources/application.yml")));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** Relaxed-bound properties read with @Value in the shared object store configuration. */
    static Set<String> objectStoreVariables() throws IOException {
        String src = Files.readString(ROOT.resolve(
                "shared-platform/src/main/java/com/acme/catalog/platform/objectstore/ObjectStoreConfiguration.java"));
        Matcher m = Pattern.compile("\\$\\{([a-z0-9.-]+)[:}]").matcher(src);
        Set<String> out = new TreeSet<>();
        while (m.find()) {
            out.add(m.group(1).replace('.', '_').replace('-', '_').toUpperCase());
        }
        return out;
    }

    @Test
    void bothBuildTheSameImagesFromTheSameContexts() throws IOException {
        String s = script();
        for (Map.Entry<String, String> e : SERVICES.entrySet()) {
            Map<String, Object> svc = service(e.getKey());
            assertThat((String) svc.get("image")).startsWith("catalog/" + e.getValue() + ":");
            @SuppressWarnings("unchecked")
            Map<String, Object> build = (Map<String, Object>) svc.get("build");
            assertThat(Path.of((String) build.get("context")).normalize()).isEqualTo(Path.of(e.getValue()));
            assertThat(s).contains("build \"localhost/catalog/" + e.getValue() + ":$TAG\" " + e.getValue() + " ");
            assertThat(s).contains("\"localhost/catalog/" + e.getValue() + ":$TAG\"");
            assertThat(ROOT.resolve(e.getValue() + "/Dockerfile")).exists();
        }
    }

    @Test
    void bothSetTheSameVariablesAndEachIsOneTheServiceReads() throws IOException {
        Set<String> objectStore = objectStoreVariables();
        assertThat(objectStore).contains("OBJECT_STORE_URI", "OBJECT_STORE_S3_ENDPOINT", "AWS_REGION");
        for (Map.Entry<String, String> e : SERVICES.entrySet()) {
            Set<String> compose = composeEnv(e.getKey());
            Set<String> test = testEnv(e.getValue());
            Set<String> testWithoutTestOnly = test.stream().filter(n -> !TEST_ONLY.contains(n))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(testWithoutTestOnly).as("%s: the container test's variables = compose's", e.getKey())
                    .isEqualTo(compose);
            Set<String> read = new TreeSet<>(configured(e.getValue()));
            read.addAll(LIBRARY_READ);
            read.addAll(objectStore);
            assertThat(read).as("%s reads every variable compose and the container test set", e.getKey())
                    .containsAll(compose).containsAll(test);
        }
    }

    @Test
    void portsAgreeWithServerPortAndPrometheusTargets() throws IOException {
        String prometheus = Files.readString(ROOT.resolve("deploy/prometheus/prometheus.yml"));
        String s = script();
        for (String name : SERVICES.keySet()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> env = (Map<String, Object>) service(name).get("environment");
            String port = String.valueOf(env.get("SERVER_PORT"));
            @SuppressWarnings("unchecked")
            List<String> ports = (List<String>) service(name).get("ports");
            assertThat(ports).containsExactly(port + ":" + port);
            // Prometheus scrapes the compose service at its port; the container test moves exactly that target
            assertThat(prometheus).contains("\"" + name + ":" + port + "\"");
            assertThat(s).contains("s/" + name + ":" + port + "/127.0.0.1:");
            // the product's delivery URL and the relay's allowlist name the same product port
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> product = (Map<String, Object>) service("product").get("environment");
        @SuppressWarnings("unchecked")
        Map<String, Object> resolver = (Map<String, Object>) service("resolver").get("environment");
        assertThat((String) product.get("PRODUCT_DELIVERY_URL"))
                .startsWith((String) resolver.get("RELAY_ALLOWED_DELIVERY_URLS"))
                .isEqualTo("http://product:" + product.get("SERVER_PORT") + "/v1/inbox/events");
        assertThat((String) product.get("RESOLVER_URL")).isEqualTo("http://resolver:" + resolver.get("SERVER_PORT"));
    }

    @Test
    void bothUseTheImagesOwnHealthCheckOnActuatorHealth() throws IOException {
        for (Map.Entry<String, String> e : SERVICES.entrySet()) {
            // compose does not override it; the container test runs it (podman healthcheck run) until it passes
            assertThat(service(e.getKey())).doesNotContainKey("healthcheck");
            String dockerfile = Files.readString(ROOT.resolve(e.getValue() + "/Dockerfile"));
            assertThat(dockerfile).containsPattern("HEALTHCHECK[^\\n]*\\\\\\n[^\\n]*GET /actuator/health ");
        }
        @SuppressWarnings("unchecked")
        Map<String, Map<String, String>> dependsOn = (Map<String, Map<String, String>>) service("product")
                .get("depends_on");
        assertThat(dependsOn.get("resolver")).containsEntry("condition", "service_healthy");
        assertThat(script()).contains("$PODMAN healthcheck run")
                .contains("healthy \"$PREFIX-resolver\"").contains("healthy \"$PREFIX-product\"");
    }

    @Test
    void prometheusUsesTheSameConfigurationAndRules() throws IOException {
        @SuppressWarnings("unchecked")
        List<String> volumes = (List<String>) service("prometheus").get("volumes");
        assertThat(volumes).contains("./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
                "./deploy/prometheus/catalog-rules.yml:/etc/prometheus/catalog-rules.yml:ro");
        assertThat(script()).contains("deploy/prometheus/prometheus.yml >\"$WORK/prometheus.yml\"")
                .contains("cp deploy/prometheus/catalog-rules.yml");
        assertThat(Files.readString(ROOT.resolve("deploy/prometheus/prometheus.yml")))
                .contains("/etc/prometheus/catalog-rules.yml").contains("metrics_path: /actuator/prometheus");
        // Grafana gets every dashboard the container test checks
        @SuppressWarnings("unchecked")
        List<String> grafana = (List<String>) service("grafana").get("volumes");
        assertThat(grafana).contains("./docs/grafana:/var/lib/grafana/dashboards:ro");
        assertThat(script()).contains("docs/grafana");
    }
}
