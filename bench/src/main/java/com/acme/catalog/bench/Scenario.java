package com.acme.catalog.bench;

import java.util.Map;

/** One benchmark: measures the system and a same-run baseline, returns figures including a ratio. */
interface Scenario {

    String name();

    String description();

    /** @return the figures of the JSON result line; include at least one {@code ratio…} member */
    Map<String, Object> run(Options options) throws Exception;
}
