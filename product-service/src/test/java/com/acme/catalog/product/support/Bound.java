package com.acme.catalog.product.support;

import java.util.Map;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** Binds a properties record the way the application does, from the given keys only (defaults for the rest). */
public final class Bound {

    private Bound() {
    }

    public static <T> T bind(String prefix, Class<T> type, Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate(prefix, Bindable.of(type));
    }
}
