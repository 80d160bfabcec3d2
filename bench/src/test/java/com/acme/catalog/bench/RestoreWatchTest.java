package com.acme.catalog.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * When the restore scenario's fleet watch ends the RTO: the fleet completeness view (CONTRACT.md: counts by state
 * and by epoch, the streams not CURRENT) must count every stream CURRENT at the new epoch and list none; its
 * {@code byEpoch} may count streams or count them by state.
 */
class RestoreWatchTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            all CURRENT              | {"byState":{"CURRENT":3},"byEpoch":{"2":3},"notCurrent":[]} | true
            byEpoch by state         | {"byState":{"CURRENT":3},"byEpoch":{"2":{"CURRENT":3}},"notCurrent":[]} | true
            byEpoch by state, summed | {"byState":{"CURRENT":3},"byEpoch":{"2":{"A":1,"B":2}},"notCurrent":[]} | true
            no byEpoch               | {"byState":{"CURRENT":3},"notCurrent":[]} | true
            one not CURRENT          | {"byState":{"CURRENT":2,"X":1},"byEpoch":{"2":3},"notCurrent":[]} | false
            one at the old epoch     | {"byState":{"CURRENT":3},"byEpoch":{"1":1,"2":2},"notCurrent":[]} | false
            none at the new epoch    | {"byState":{"CURRENT":3},"byEpoch":{"1":3},"notCurrent":[]} | false
            one listed not CURRENT   | {"byState":{"CURRENT":3},"byEpoch":{"2":3},"notCurrent":[{"c":"c0"}]} | false
            no notCurrent list       | {"byState":{"CURRENT":3},"byEpoch":{"2":3}} | false
            no counts by state       | {"notCurrent":[]} | false
            """)
    void theWatchEndsOnlyWhenTheViewCountsEveryStreamCurrentAtTheNewEpoch(String name, String view, boolean done) {
        assertThat(RestoreWatch.everyStreamCurrent(JSON.readTree(view), 3, 2)).isEqualTo(done);
    }
}
