package com.acme.catalog.product;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The product's durations are {@code Duration} keys without a unit in their name ({@code PT10S}, or {@code 10s});
 * the keys they replace, which named their unit ({@code product.completeness.refresh-ms}), are still accepted, in any
 * spelling Spring accepts (an environment variable {@code PRODUCT_COMPLETENESS_REFRESH_MS} or
 * {@code PRODUCT_COMPLETENESS_REFRESHMS}, a command-line argument, {@code SPRING_APPLICATION_JSON}, a test property).
 * An old key's value is put under its new key in a property source placed just after the one that holds the old key:
 * it outranks whatever lower sources (the packaged {@code application.yml}) say, while the new key set in the same or
 * a higher source wins. A plain number is read in the old key's unit; a value with a unit or in ISO form is taken as
 * it is. One WARN per deprecated key found (docs/configuration.md "Deprecated keys").
 *
 * <p>Registered in {@code META-INF/spring.factories}; runs after the config data (application.yml) is loaded.
 */
public class DeprecatedDurationKeys implements EnvironmentPostProcessor, Ordered {

    /** A deprecated key, the key that replaced it, and the unit of a plain number under the old one. */
    record Renamed(String oldKey, String newKey, ChronoUnit unit) {
    }

    /** Every deprecated duration key of the product (docs/configuration.md has the same table). */
    static final List<Renamed> RENAMED = List.of(
            new Renamed("product.progress.initial-backoff-ms", "product.progress.initial-backoff", ChronoUnit.MILLIS),
            new Renamed("product.progress.max-backoff-ms", "product.progress.max-backoff", ChronoUnit.MILLIS),
            new Renamed("product.progress.min-interval-ms", "product.progress.min-interval", ChronoUnit.MILLIS),
            new Renamed("product.progress.resync-interval-ms", "product.progress.resync-interval", ChronoUnit.MILLIS),
            new Renamed("product.progress.request-timeout-ms", "product.progress.request-timeout", ChronoUnit.MILLIS),
            new Renamed("product.rebuild.request-timeout-ms", "product.rebuild.request-timeout", ChronoUnit.MILLIS),
            new Renamed("product.rebuild.lease-ttl-seconds", "product.rebuild.lease-ttl", ChronoUnit.SECONDS),
            new Renamed("product.rebuild.poll-ms", "product.rebuild.poll-interval", ChronoUnit.MILLIS),
            new Renamed("product.completeness.refresh-ms", "product.completeness.refresh-interval", ChronoUnit.MILLIS),
            new Renamed("product.completeness.heartbeat-stale-ms", "product.completeness.heartbeat-stale-after",
                    ChronoUnit.MILLIS),
            new Renamed("product.recovery.lease-ttl-seconds", "product.recovery.lease-ttl", ChronoUnit.SECONDS),
            new Renamed("product.recovery.interval-ms", "product.recovery.interval", ChronoUnit.MILLIS),
            new Renamed("product.recovery.gap-grace-ms", "product.recovery.gap-grace", ChronoUnit.MILLIS),
            new Renamed("product.recovery.initial-backoff-ms", "product.recovery.initial-backoff", ChronoUnit.MILLIS),
            new Renamed("product.recovery.max-backoff-ms", "product.recovery.max-backoff", ChronoUnit.MILLIS),
            new Renamed("product.recovery.resolver-lease-ttl-seconds", "product.recovery.resolver-lease-ttl",
                    ChronoUnit.SECONDS),
            new Renamed("product.epochs.poll-ms", "product.epochs.poll-interval", ChronoUnit.MILLIS),
            new Renamed("product.epochs.reload-ms", "product.epochs.reload-interval", ChronoUnit.MILLIS));

    /** A deprecated map of durations (one entry per rebuild phase), renamed the same way entry by entry. */
    static final Renamed TEST_PAUSES = new Renamed("product.rebuild.test-pause-ms", "product.rebuild.test-pause",
            ChronoUnit.MILLIS);

    /** The name of the source Spring attaches over all others: it repeats them, so it is skipped. */
    private static final String ATTACHED = "configurationProperties";

    private final Consumer<String> warn;

    /** Called by Spring Boot: the warnings are logged once logging is set up. */
    public DeprecatedDurationKeys(DeferredLogFactory logs) {
        Log log = logs.getLog(DeprecatedDurationKeys.class);
        this.warn = log::warn;
    }

    DeprecatedDurationKeys(Consumer<String> warn) {
        this.warn = warn;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE; // after ConfigDataEnvironmentPostProcessor loaded application.yml
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        List<PropertySource<?>> sources = new ArrayList<>();
        environment.getPropertySources().forEach(sources::add);
        for (PropertySource<?> source : sources) {
            ConfigurationPropertySource adapted = source.getName().equals(ATTACHED) ? null
                    : ConfigurationPropertySource.from(source);
            if (adapted == null) {
                continue;
            }
            Map<String, Object> mapped = renamed(new Binder(List.of(adapted),
                    new PropertySourcesPlaceholdersResolver(environment)));
            if (!mapped.isEmpty()) {
                environment.getPropertySources().addAfter(source.getName(),
                        new MapPropertySource("deprecatedDurationKeys(" + source.getName() + ")", mapped));
            }
        }
    }

    /** @return the new keys and values for the deprecated keys {@code source} sets, each warned about once */
    Map<String, Object> renamed(Binder source) {
        Map<String, Object> mapped = new LinkedHashMap<>();
        for (Renamed r : RENAMED) {
            source.bind(r.oldKey(), String.class).ifBound(value -> {
                String iso = iso(value, r.unit());
                mapped.put(r.newKey(), iso);
                warn.accept(r.oldKey() + " is deprecated: set " + r.newKey() + "=" + iso + " instead "
                        + "(docs/configuration.md)");
            });
        }
        source.bind(TEST_PAUSES.oldKey(), Bindable.mapOf(String.class, String.class)).ifBound(pauses -> {
            pauses.forEach((phase, value) -> mapped.put(TEST_PAUSES.newKey() + "." + phase,
                    iso(value, TEST_PAUSES.unit())));
            warn.accept(TEST_PAUSES.oldKey() + ".* is deprecated: set " + TEST_PAUSES.newKey() + ".* instead "
                    + "(docs/configuration.md)");
        });
        return mapped;
    }

    /** A plain number in {@code unit} as an ISO-8601 duration; any other text as it is (the binder parses it). */
    static String iso(String value, ChronoUnit unit) {
        String v = value.trim();
        if (v.matches("-?\\d+")) {
            return Duration.of(Long.parseLong(v), unit).toString();
        }
        return v;
    }
}
