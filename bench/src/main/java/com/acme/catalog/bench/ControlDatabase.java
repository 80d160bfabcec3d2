package com.acme.catalog.bench;

import java.util.HashMap;
import java.util.Map;

import com.acme.catalog.testsupport.TestDatabase;

/**
 * Every run's resolver gets a control store of its own, as its resolver database is fresh: a shared control store
 * would remember another run's high-water marks for the same stream names and refuse the new database as rolled
 * back (docs/epochs.md).
 */
final class ControlDatabase {

    private ControlDatabase() {
    }

    /** {@code env} plus the control store's {@code CONTROL_DATASOURCE_*} variables. */
    static Map<String, String> env(TestDatabase control, Map<String, String> env) {
        Map<String, String> out = new HashMap<>(env);
        out.put("CONTROL_DATASOURCE_URL", control.jdbcUrl());
        out.put("CONTROL_DATASOURCE_USERNAME", control.username());
        out.put("CONTROL_DATASOURCE_PASSWORD", control.password() == null ? "" : control.password());
        return out;
    }
}
