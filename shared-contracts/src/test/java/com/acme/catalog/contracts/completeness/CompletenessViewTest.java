package com.acme.catalog.contracts.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.contracts.epoch.OldEpochDeliveries;
import com.acme.catalog.contracts.epoch.OldEpochDelivery;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The product's completeness, checksum and audit answers write the JSON its maps wrote before them. */
class CompletenessViewTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void unknownTimesStayAsNullsAndAnAbsentReasonIsLeftOut() {
        assertThat(JSON.writeValueAsString(new CompletenessView(1, 0, null, 0, "CATCHING_UP", null,
                new CompletenessView.Worker(false, null)))).isEqualTo("{\"epoch\":1,\"verifiedThrough\":0,"
                        + "\"lastSuccessfulVerification\":null,\"observedSourceBoundary\":0,\"state\":\"CATCHING_UP\","
                        + "\"worker\":{\"alive\":false,\"lastHeartbeat\":null}}");
        Instant at = Instant.parse("2026-12-02T04:50:07.543210Z");
        Instant whole = Instant.parse("2026-12-02T04:50:00Z");
        assertThat(JSON.writeValueAsString(new CompletenessView(2, 7, at, 9, "BLOCKED", "chain break",
                new CompletenessView.Worker(true, whole)))).isEqualTo("{\"epoch\":2,\"verifiedThrough\":7,"
                        + "\"lastSuccessfulVerification\":\"" + at + "\",\"observedSourceBoundary\":9,"
                        + "\"state\":\"BLOCKED\",\"reason\":\"chain break\","
                        + "\"worker\":{\"alive\":true,\"lastHeartbeat\":\"" + whole + "\"}}");
    }

    @Test
    void checksumAndAuditAnswersKeepTheirFieldOrder() {
        assertThat(JSON.writeValueAsString(new ChecksumAnswer(1, 7, "public-view-v1",
                Map.of("publicItems", new TableChecksum(0, "e3b0"))))).isEqualTo("{\"epoch\":1,\"position\":7,"
                        + "\"profile\":\"public-view-v1\",\"tables\":{\"publicItems\":{\"rows\":0,\"sha256\":\"e3b0\"}}}");
        Instant at = Instant.parse("2026-12-02T04:50:07.100Z");
        assertThat(JSON.writeValueAsString(new OldEpochDeliveries(List.of(new OldEpochDelivery("acme", "shoes", 1,
                4, "PAGE", at))))).isEqualTo("{\"deliveries\":[{\"tenant\":\"acme\",\"catalog\":\"shoes\","
                        + "\"epoch\":1,\"position\":4,\"source\":\"PAGE\",\"receivedAt\":\"" + at + "\"}]}");
    }
}
