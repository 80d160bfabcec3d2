package com.acme.catalog.product;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import com.acme.catalog.product.epoch.EpochProperties;
import com.acme.catalog.product.progress.ProgressProperties;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The deprecated {@code -ms} / {@code -seconds} keys still set the product's durations: mapped onto the new keys
 * in their unit, at their own precedence, in every spelling (environment variables included), one WARN each.
 */
class DeprecatedDurationKeysTest {

    private final List<String> warnings = new ArrayList<>();
    private final DeprecatedDurationKeys keys = new DeprecatedDurationKeys((Consumer<String>) warnings::add);

    @Test
    void anOldKeysNumberIsReadInItsUnitAndSetsTheNewKey() {
        StandardEnvironment env = environment(Map.of());
        env.getPropertySources().addFirst(new MapPropertySource("test", Map.of(
                "product.completeness.refresh-ms", "250", "product.recovery.lease-ttl-seconds", "7",
                "product.epochs.poll-ms", "2s", "product.rebuild.test-pause-ms.LOADING", "3000")));

        keys.postProcessEnvironment(env, new SpringApplication());

        assertThat(env.getProperty("product.completeness.refresh-interval")).isEqualTo("PT0.25S");
        assertThat(env.getProperty("product.recovery.lease-ttl")).isEqualTo("PT7S");
        assertThat(env.getProperty("product.epochs.poll-interval")).as("a value with a unit as it is").isEqualTo("2s");
        assertThat(env.getProperty("product.rebuild.test-pause.LOADING")).isEqualTo("PT3S");
        assertThat(Binder.get(env).bind("product.epochs", EpochProperties.class).get().poll())
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(warnings).hasSize(4).anySatisfy(w -> assertThat(w).startsWith(
                "product.completeness.refresh-ms is deprecated: set product.completeness.refresh-interval=PT0.25S"));
    }

    @Test
    void environmentVariablesInEitherSpellingStillWork() {
        StandardEnvironment env = environment(Map.of("PRODUCT_COMPLETENESS_REFRESH_MS", "5000",
                "PRODUCT_PROGRESS_RESYNCINTERVALMS", "1000"));

        keys.postProcessEnvironment(env, new SpringApplication());

        assertThat(env.getProperty("product.completeness.refresh-interval")).isEqualTo("PT5S");
        assertThat(Binder.get(env).bind("product.progress", ProgressProperties.class).get().resyncInterval())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(warnings).hasSize(2);
    }

    @Test
    void theOldKeyOutranksLowerSourcesAndTheNewKeyWinsBesideIt() {
        StandardEnvironment env = environment(Map.of("PRODUCT_RECOVERY_INTERVAL_MS", "1000"));
        // what application.yml says: lower than the environment
        env.getPropertySources().addLast(new MapPropertySource("application.yml", Map.of(
                "product.recovery.interval", "PT30S", "product.recovery.gap-grace", "PT2S")));
        // a test property source setting both the old and the new key: the new one wins
        env.getPropertySources().addFirst(new MapPropertySource("test", Map.of(
                "product.recovery.gap-grace-ms", "100", "product.recovery.gap-grace", "PT0.5S")));

        keys.postProcessEnvironment(env, new SpringApplication());

        assertThat(env.getProperty("product.recovery.interval")).isEqualTo("PT1S");
        assertThat(env.getProperty("product.recovery.gap-grace")).isEqualTo("PT0.5S");
    }

    @Test
    void nothingDeprecatedNothingChangedNothingLogged() {
        StandardEnvironment env = environment(Map.of("PRODUCT_STREAMS", "acme/shoes"));
        int sources = env.getPropertySources().size();

        keys.postProcessEnvironment(env, new SpringApplication());

        assertThat(env.getPropertySources().size()).isEqualTo(sources);
        assertThat(warnings).isEmpty();
    }

    @Test
    void plainNumbersBecomeIsoDurations() {
        assertThat(DeprecatedDurationKeys.iso("600000", ChronoUnit.MILLIS)).isEqualTo("PT10M");
        assertThat(DeprecatedDurationKeys.iso(" 120 ", ChronoUnit.SECONDS)).isEqualTo("PT2M");
        assertThat(DeprecatedDurationKeys.iso("0", ChronoUnit.MILLIS)).isEqualTo("PT0S");
        assertThat(DeprecatedDurationKeys.iso("-1", ChronoUnit.MILLIS)).isEqualTo("PT-0.001S");
        assertThat(DeprecatedDurationKeys.iso("PT1S", ChronoUnit.MILLIS)).isEqualTo("PT1S");
    }

    /** Registered in META-INF/spring.factories: a Spring Boot start maps an old command-line key over application.yml. */
    @Test
    void springBootRunsItAtStart() {
        SpringApplication app = new SpringApplication(Empty.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext ctx = app.run("--product.completeness.refresh-ms=250",
                "--spring.main.banner-mode=off")) {
            assertThat(ctx.getEnvironment().getProperty("product.completeness.refresh-interval")).isEqualTo("PT0.25S");
            assertThat(ctx.getEnvironment().getProperty("product.recovery.interval")).as("application.yml")
                    .isEqualTo("PT30S");
        }
    }

    /** A context with no beans: only the environment is looked at. */
    @Configuration(proxyBeanMethods = false)
    static class Empty {
    }

    private static StandardEnvironment environment(Map<String, Object> variables) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        variables));
        return env;
    }
}
