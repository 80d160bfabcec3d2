package com.acme.catalog.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * {@code java -jar bench/target/bench.jar SCENARIO [--key=value …]}: runs one scenario, printing progress on
 * stderr and one JSON result line on stdout, which always holds a ratio against a baseline measured in the same
 * run. Scenarios create their own databases on the test PostgreSQL server (see {@code TestDatabase}).
 */
public final class Bench {

    private static final Map<String, Scenario> SCENARIOS = new LinkedHashMap<>();

    static {
        register(new WriteScenario());
        register(new PruneScenario());
        register(new ExportScenario());
        register(new BootstrapScenario());
        register(new ChunkSizeScenario());
        register(new ConvertScenario());
        register(new MoveScenario());
        register(new PropagationScenario());
        register(new StreamWritersScenario());
        register(new RebuildScenario());
        register(new IntakeScenario());
        register(new StreamsScenario());
        register(new RestoreScenario());
    }

    private Bench() {
    }

    static void register(Scenario s) {
        SCENARIOS.put(s.name(), s);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !SCENARIOS.containsKey(args[0])) {
            System.err.println("usage: java -jar bench/target/bench.jar SCENARIO [--key=value ...]");
            SCENARIOS.values().forEach(s -> System.err.printf("  %-12s %s%n", s.name(), s.description()));
            System.exit(2);
        }
        Options options = Options.parse(args);
        Scenario scenario = SCENARIOS.get(args[0]);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("scenario", scenario.name());
        result.putAll(scenario.run(options));
        System.out.println(JsonMapper.builder().build().writeValueAsString(result));
        System.out.flush();
        System.exit(0); // scenario thread pools (HTTP clients) must not keep the JVM alive
    }
}
