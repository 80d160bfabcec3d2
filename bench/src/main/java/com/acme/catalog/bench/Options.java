package com.acme.catalog.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --key=value} options after the scenario name. */
record Options(Map<String, String> values) {

    static Options parse(String[] args) {
        Map<String, String> m = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !a.contains("=")) {
                throw new IllegalArgumentException("options are --key=value, got " + a);
            }
            m.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        return new Options(m);
    }

    int integer(String key, int fallback) {
        return values.containsKey(key) ? Integer.parseInt(values.get(key)) : fallback;
    }

    String string(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }
}
