package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumAnswer;
import com.acme.catalog.resolver.bootstrap.ReadinessJudge.Completeness;

import org.junit.jupiter.api.Test;

/** The readiness rule, case by case: the product current at the import's epoch and position, both profiles equal. */
class ReadinessJudgeTest {

    private static final Completeness CURRENT = new Completeness("CURRENT", 2L, 100L, null);

    @Test
    void readyOnlyWhenCurrentAtTheImportsEpochAndPositionWithBothProfilesEqual() {
        assertThat(judge(CURRENT, both(100, "a", "p"), both(100, "a", "p")).ready()).isTrue();
        assertThat(judge(new Completeness("CURRENT", 2L, 140L, null), both(140, "a", "p"), both(140, "a", "p"))
                .ready()).as("writes after the import, both sides at them").isTrue();
    }

    @Test
    void eachWayOfNotBeingReadyIsNamed() {
        record Case(Completeness c, Map<String, ChecksumAnswer> resolver, Map<String, ChecksumAnswer> product,
                String reason) {
        }
        for (Case c : new Case[] {
            new Case(null, Map.of(), Map.of(), "the product could not be asked (connection refused)"),
            new Case(new Completeness("CATCHING_UP", 2L, 40L, "applying"), Map.of(), Map.of(),
                    "the product reports the stream CATCHING_UP (applying)"),
            new Case(new Completeness("CURRENT", 1L, 300L, null), Map.of(), Map.of(),
                    "the product serves epoch 1, the import wrote epoch 2"),
            new Case(new Completeness("CURRENT", 2L, 99L, null), Map.of(), Map.of(),
                    "the product is verified through position 99, the import ended at 100"),
            new Case(CURRENT, both(100, "a", "p"), both(101, "a", "p"), "accepted-state-v1 answered at epoch 2 "
                    + "position 100 (resolver) and epoch 2 position 101 (product)"),
            new Case(CURRENT, both(100, "a", "p"), both(100, "a", "q"), "public-view-v1 differs"),
            new Case(CURRENT, both(100, "a", "p"), Map.of(), "accepted-state-v1 was not answered by the product"),
        }) {
            ReadinessJudge.Verdict v = judge(c.c(), c.resolver(), c.product());
            assertThat(v.ready()).as(c.reason()).isFalse();
            assertThat(v.reason()).startsWith(c.reason());
        }
    }

    @Test
    void theComparisonsAreReported() {
        ReadinessJudge.Verdict v = judge(CURRENT, both(100, "a", "p"), both(100, "a", "q"));
        assertThat(v.checksums()).containsEntry("accepted-state-v1",
                new ImportSummary.ChecksumComparison(100L, 100L, true))
                .containsEntry("public-view-v1", new ImportSummary.ChecksumComparison(100L, 100L, false));
    }

    private static ReadinessJudge.Verdict judge(Completeness c, Map<String, ChecksumAnswer> resolver,
            Map<String, ChecksumAnswer> product) {
        return ReadinessJudge.judge(2, 100, c, "connection refused", resolver, product);
    }

    private static Map<String, ChecksumAnswer> both(long position, String accepted, String publicView) {
        Map<String, ChecksumAnswer> m = new LinkedHashMap<>();
        m.put("accepted-state-v1", new ChecksumAnswer(2, position, "accepted-state-v1",
                Map.of("items", new TableChecksum(3, accepted))));
        m.put("public-view-v1", new ChecksumAnswer(2, position, "public-view-v1",
                Map.of("publicItems", new TableChecksum(1, publicView))));
        return m;
    }
}
