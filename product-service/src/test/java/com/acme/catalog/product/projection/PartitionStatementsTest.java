package com.acme.catalog.product.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

class PartitionStatementsTest {

    private final PartitionStatements statements = new PartitionStatements(List.of(
            "SELECT item_id FROM item_g%1$d WHERE generation_id = ?",
            "INSERT INTO item_g%1$d SELECT * FROM aggregate_revision_g%1$d"));

    @Test
    void namesTheGenerationsPartitionsInEveryPlace() {
        assertThat(statements.get(0, 12)).isEqualTo("SELECT item_id FROM item_g12 WHERE generation_id = ?");
        assertThat(statements.get(1, 12)).isEqualTo("INSERT INTO item_g12 SELECT * FROM aggregate_revision_g12");
        assertThat(statements.get(0, 7)).isEqualTo("SELECT item_id FROM item_g7 WHERE generation_id = ?");
    }

    @Test
    void buildsEachGenerationsTextsOnce() {
        String first = statements.get(1, 42);
        assertThat(statements.get(1, 42)).isSameAs(first);
        assertThat(statements.size()).isEqualTo(1);
    }

    /** String.formatted("%1$d") writes the default locale's digits: item_g١٢ under ar-SA, a table that is not there. */
    @Test
    void writesAsciiDigitsWhateverTheDefaultLocale() {
        Locale before = Locale.getDefault();
        try {
            for (String tag : List.of("ar-SA", "th-TH-u-nu-thai", "hi-IN-u-nu-deva")) {
                Locale.setDefault(Locale.forLanguageTag(tag));
                PartitionStatements fresh = new PartitionStatements(List.of("SELECT 1 FROM item_g%1$d"));
                assertThat(fresh.get(0, 12)).as(tag).isEqualTo("SELECT 1 FROM item_g12");
            }
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void staysBoundedOverManyGenerations() {
        for (long g = 1; g <= 3L * PartitionStatements.MAX_GENERATIONS; g++) {
            assertThat(statements.get(0, g)).endsWith("item_g" + g + " WHERE generation_id = ?");
        }
        assertThat(statements.size()).isLessThanOrEqualTo(PartitionStatements.MAX_GENERATIONS);
    }

    @Test
    void namesTheSharedPartitionsForEverySharedGenerationWithOneEntry() {
        long shared = GenerationStorage.SHARED_BASE;
        assertThat(statements.get(1, shared)).isEqualTo("INSERT INTO item_shared SELECT * FROM aggregate_revision_shared");
        assertThat(statements.get(1, shared + 4_321)).isSameAs(statements.get(1, shared));
        assertThat(statements.get(0, shared - 1)).isEqualTo("SELECT item_id FROM item_g" + (shared - 1)
                + " WHERE generation_id = ?");
        assertThat(statements.size()).isEqualTo(2);
    }

    @Test
    void refusesATemplateWithoutTheGenerationAndANonPositiveGeneration() {
        assertThatThrownBy(() -> new PartitionStatements(List.of("SELECT %1$d FROM item_g%1$d")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionStatements(List.of("SELECT 1 FROM item")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> statements.get(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
