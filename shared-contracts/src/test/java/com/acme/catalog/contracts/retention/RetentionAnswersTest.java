package com.acme.catalog.contracts.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The retention status and prune records write the JSON the resolver's maps wrote before them. */
class RetentionAnswersTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void statusKeepsEveryFieldUnknownTimesAsNulls() {
        Instant at = Instant.parse("2026-12-02T04:50:07.123456Z");
        UUID lease = UUID.fromString("01900000-0000-7000-8000-000000000001");
        RetentionView v = new RetentionView(1, 9, 2, 7, List.of(new RetentionBlocker("gap", null, 3)),
                List.of(new RetentionView.Consumer("c-1", 1, 4, 5, null, at, null)),
                List.of(new RetentionView.Lease(lease, "rebuild", 4, at, at)), "acme", "shoes", "PT1H", 3, 3, at);
        assertThat(JSON.writeValueAsString(v)).isEqualTo("{\"epoch\":1,\"cursor\":9,\"prunedThrough\":2,"
                + "\"retainedEvents\":7,\"blockedBy\":[{\"kind\":\"gap\",\"id\":null,\"position\":3}],"
                + "\"consumers\":[{\"consumerId\":\"c-1\",\"epoch\":1,\"durablePosition\":4,\"lagEvents\":5,"
                + "\"deliveryUrl\":null,\"registeredAt\":\"" + at + "\",\"progressAt\":null}],"
                + "\"leases\":[{\"leaseId\":\"" + lease + "\",\"owner\":\"rebuild\",\"pin\":4,\"createdAt\":\"" + at
                + "\",\"expiresAt\":\"" + at + "\"}],\"tenant\":\"acme\",\"catalog\":\"shoes\",\"minAge\":\"PT1H\","
                + "\"ripeThrough\":3,\"pruneableThrough\":3,\"observedAt\":\"" + at + "\"}");
    }

    @Test
    void aPruneOfOneStreamNamesItsEpochAndOneOfSeveralNamesEachBlockersStream() {
        List<PruneResult.StreamPruned> streams = List.of(new PruneResult.StreamPruned("acme", "shoes", 1, 5, 1, 7));
        assertThat(JSON.writeValueAsString(new PruneResult(5, 7L, List.of(new RetentionBlocker("lease", "l", 7)), 1L,
                streams))).isEqualTo("{\"pruned\":5,\"prunedThrough\":7,"
                        + "\"blockedBy\":[{\"kind\":\"lease\",\"id\":\"l\",\"position\":7}],\"epoch\":1,"
                        + "\"streams\":[{\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":1,\"pruned\":5,"
                        + "\"batches\":1,\"prunedThrough\":7}]}");
        assertThat(JSON.writeValueAsString(new PruneResult(5, null,
                List.of(new RetentionBlocker("lease", "l", 7).in("acme", "shoes")), null, streams)))
                .isEqualTo("{\"pruned\":5,\"prunedThrough\":null,\"blockedBy\":[{\"kind\":\"lease\",\"id\":\"l\","
                        + "\"position\":7,\"tenant\":\"acme\",\"catalog\":\"shoes\"}],"
                        + "\"streams\":[{\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":1,\"pruned\":5,"
                        + "\"batches\":1,\"prunedThrough\":7}]}");
    }
}
