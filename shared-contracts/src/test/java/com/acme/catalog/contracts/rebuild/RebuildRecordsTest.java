package com.acme.catalog.contracts.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.json.StrictJson;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The rebuild records write the JSON the product's maps wrote before them, field for field. */
class RebuildRecordsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final UUID ID = UUID.fromString("01900000-0000-7000-8000-000000000001");

    @Test
    void aViewKeepsAnUnknownTargetAsNullAndLeavesOutWhatItDoesNotHave() {
        assertThat(JSON.writeValueAsString(new RebuildView(ID, "acme", "shoes", "LOADING", 1, 0, null, 5, 0, null,
                null, null))).isEqualTo("{\"rebuildId\":\"" + ID + "\",\"tenant\":\"acme\",\"catalog\":\"shoes\","
                        + "\"phase\":\"LOADING\",\"attempt\":1,\"cursor\":0,\"target\":null,\"loadedRows\":5,"
                        + "\"appliedEvents\":0}");
        Map<String, Long> phases = new LinkedHashMap<>();
        phases.put("LOADING", 12L);
        phases.put("CATCHING_UP", 3L);
        assertThat(JSON.writeValueAsString(new RebuildView(ID, "acme", "shoes", "FAILED", 2, 7, 9L, 5, 1, "boom",
                phases, Map.of()))).isEqualTo("{\"rebuildId\":\"" + ID + "\",\"tenant\":\"acme\","
                        + "\"catalog\":\"shoes\",\"phase\":\"FAILED\",\"attempt\":2,\"cursor\":7,\"target\":9,"
                        + "\"loadedRows\":5,\"appliedEvents\":1,\"error\":\"boom\","
                        + "\"phaseMillis\":{\"LOADING\":12,\"CATCHING_UP\":3},\"stepMillis\":{}}");
        assertThat(JSON.writeValueAsString(new RebuildStarted(ID))).isEqualTo("{\"rebuildId\":\"" + ID + "\"}");
    }

    @Test
    void progressIsAddedAtTheEndAndLeavesOutWhatIsNotKnown() {
        RebuildView.Progress progress = new RebuildView.Progress("LOADING", "rows", 40L, 100L, 20.0, "PT3S", null,
                new RebuildView.Count("rows", 40, 100L, 20.0, "PT3S"), null, null,
                java.time.Instant.parse("2026-11-30T10:05:00Z"), true);
        assertThat(JSON.writeValueAsString(new RebuildView(ID, "acme", "shoes", "LOADING", 1, 0, null, 5, 0, null,
                null, null, null, null, null, null, null, null, null, progress))).isEqualTo("{\"rebuildId\":\"" + ID
                        + "\",\"tenant\":\"acme\",\"catalog\":\"shoes\",\"phase\":\"LOADING\",\"attempt\":1,"
                        + "\"cursor\":0,\"target\":null,\"loadedRows\":5,\"appliedEvents\":0,"
                        + "\"progress\":{\"phase\":\"LOADING\",\"unit\":\"rows\",\"done\":40,\"total\":100,"
                        + "\"ratePerSecond\":20.0,\"phaseEta\":\"PT3S\",\"load\":{\"unit\":\"rows\",\"done\":40,"
                        + "\"total\":100,\"ratePerSecond\":20.0,\"eta\":\"PT3S\"},"
                        + "\"asOf\":\"2026-11-30T10:05:00Z\",\"live\":true}}");
    }

    @Test
    void aRequestNeedsTwoStringsThatNameAStream() {
        assertThat(StrictJson.bind(JSON.readTree("{\"tenant\":\"acme\",\"catalog\":\"shoes\"}"),
                RebuildRequest.class, "").stream().toString()).isEqualTo("acme/shoes");
        assertThatThrownBy(() -> StrictJson.bind(JSON.readTree("{\"tenant\":\"acme\"}"), RebuildRequest.class, ""))
                .isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> StrictJson.bind(JSON.readTree("{\"tenant\":\"acme\",\"catalog\":7}"),
                RebuildRequest.class, "")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> StrictJson.bind(JSON.readTree("{\"tenant\":\"Acme\",\"catalog\":\"shoes\"}"),
                RebuildRequest.class, "")).isInstanceOf(InvalidIdException.class);
    }
}
