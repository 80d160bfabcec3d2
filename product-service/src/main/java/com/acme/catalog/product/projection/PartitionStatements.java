package com.acme.catalog.product.projection;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Statement texts that name the partitions holding one generation's rows ({@code <table>_g<generation>} for a
 * dedicated generation, {@code <table>_shared} for a shared one: {@link GenerationStorage}), built once per
 * partition set instead of once per call: formatting them on every delivery was 12% of the product's allocation and
 * 2% of its CPU at 300 deliveries a second (JFR; docs/benchmarks-archive.md, "what sets the remaining
 * latency"). The generation is substituted as plain ASCII digits ({@link Long#toString}), never through a
 * locale-aware formatter.
 *
 * <p>A generation's texts never change (its partitions keep their names until it is retired, and a retired
 * generation is never written again), so entries need no invalidation. Every shared generation has the same texts
 * (one entry); dedicated generations are few (one serving and at most one being built per rebuilt stream); the map
 * is emptied when it holds more than {@link #MAX_GENERATIONS}, so years of rebuilds cannot grow it without bound.
 */
final class PartitionStatements {

    /** How the templates name a partition: the table, then this, which becomes {@code _g<id>} or {@code _shared}. */
    static final String PARTITION = "_g%1$d";
    static final int MAX_GENERATIONS = 1024;

    private final List<String> templates;
    private final ConcurrentHashMap<String, String[]> bySuffix = new ConcurrentHashMap<>();

    /** @param templates statement texts naming partitions as {@code <table>_g%1$d} */
    PartitionStatements(List<String> templates) {
        for (String t : templates) {
            if (!t.contains(PARTITION) || t.replace(PARTITION, "").contains("%1$d")) {
                throw new IllegalArgumentException("a partition statement must name its partitions as <table>"
                        + PARTITION + " and use the generation nowhere else: " + t);
            }
        }
        this.templates = List.copyOf(templates);
    }

    /** @return template {@code index} (in constructor order) for {@code generation} */
    String get(int index, long generation) {
        String suffix = GenerationStorage.partitionSuffix(generation);
        String[] texts = bySuffix.get(suffix);
        if (texts == null) {
            if (bySuffix.size() >= MAX_GENERATIONS) {
                bySuffix.clear();
            }
            texts = bySuffix.computeIfAbsent(suffix, this::build);
        }
        return texts[index];
    }

    private String[] build(String suffix) {
        String partition = "_" + suffix;
        String[] texts = new String[templates.size()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = templates.get(i).replace(PARTITION, partition);
        }
        return texts;
    }

    /** How many partition sets' texts are held (for tests). */
    int size() {
        return bySuffix.size();
    }
}
