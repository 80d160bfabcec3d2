package com.acme.catalog.product.projection;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Statement texts that name one generation's own partitions ({@code <table>_g<generation>}), built once per
 * generation instead of once per call: formatting them on every delivery was 12% of the product's allocation and
 * 2% of its CPU at 300 deliveries a second (JFR; docs/benchmarks-archive.md, "Issue 22: what sets the remaining
 * latency"). The generation is substituted as plain ASCII digits ({@link Long#toString}), never through a
 * locale-aware formatter.
 *
 * <p>A generation's texts never change (its partitions keep their names until it is retired, and a retired
 * generation is never written again), so entries need no invalidation. Generations are few (one serving and at
 * most one being built per stream at a time); the map is emptied when it holds more than {@link #MAX_GENERATIONS},
 * so years of rebuilds cannot grow it without bound.
 */
final class PartitionStatements {

    /** The placeholder the templates use for the generation. */
    static final String GENERATION = "%1$d";
    static final int MAX_GENERATIONS = 1024;

    private final List<String> templates;
    private final ConcurrentHashMap<Long, String[]> byGeneration = new ConcurrentHashMap<>();

    /** @param templates statement texts naming partitions as {@code <table>_g%1$d} */
    PartitionStatements(List<String> templates) {
        for (String t : templates) {
            if (!t.contains(GENERATION)) {
                throw new IllegalArgumentException("a partition statement must name its generation as "
                        + GENERATION + ": " + t);
            }
        }
        this.templates = List.copyOf(templates);
    }

    /** @return template {@code index} (in constructor order) for {@code generation} */
    String get(int index, long generation) {
        if (generation <= 0) {
            throw new IllegalArgumentException("generation ids are positive, not " + generation);
        }
        String[] texts = byGeneration.get(generation);
        if (texts == null) {
            if (byGeneration.size() >= MAX_GENERATIONS) {
                byGeneration.clear();
            }
            texts = byGeneration.computeIfAbsent(generation, this::build);
        }
        return texts[index];
    }

    private String[] build(long generation) {
        String digits = Long.toString(generation);
        String[] texts = new String[templates.size()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = templates.get(i).replace(GENERATION, digits);
        }
        return texts;
    }

    /** How many generations' texts are held (for tests). */
    int size() {
        return byGeneration.size();
    }
}
