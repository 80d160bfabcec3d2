package com.acme.catalog.contracts.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The fleet's completeness on the wire: the contract's names, the counts in the order given, no next on a last page. */
class FleetCompletenessViewTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void writesTheContractsFieldsAndLeavesOutAnAbsentNext() {
        Map<String, Long> states = new LinkedHashMap<>();
        states.put("CURRENT", 2L);
        states.put("CATCHING_UP", 0L);
        states.put("RETRYING", 0L);
        states.put("BLOCKED", 1L);
        Map<String, Long> epochs = new LinkedHashMap<>();
        epochs.put("1", 1L);
        epochs.put("2", 2L);
        List<FleetCompletenessView.NotCurrent> page = List.of(
                new FleetCompletenessView.NotCurrent("acme", "shoes", 1, "BLOCKED", "EPOCH_CHANGED: x"));

        assertThat(JSON.writeValueAsString(new FleetCompletenessView(3, states, epochs, page, null)))
                .isEqualTo("{\"streams\":3,\"byState\":{\"CURRENT\":2,\"CATCHING_UP\":0,\"RETRYING\":0,"
                        + "\"BLOCKED\":1},\"byEpoch\":{\"1\":1,\"2\":2},\"notCurrent\":[{\"tenant\":\"acme\","
                        + "\"catalog\":\"shoes\",\"epoch\":1,\"state\":\"BLOCKED\",\"reason\":\"EPOCH_CHANGED: x\"}]}");
        assertThat(JSON.writeValueAsString(new FleetCompletenessView(3, states, epochs, page, "acme/shoes")))
                .endsWith(",\"next\":\"acme/shoes\"}");
    }
}
