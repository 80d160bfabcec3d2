package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@link Checker#checkOps} after a failover: acknowledged writes missing from a lost tail are listed, not violations;
 * a position of one (stream, epoch) with two contents is always a violation.
 */
class CheckerLostWritesTest {

    @Test
    void acknowledgedWritesInTheLostTailAreListedNotViolations() {
        History history = new History();
        History.Op kept = ok(history, 1, 5);
        History.Op lost = ok(history, 1, 6);
        History.Op lostToo = ok(history, 1, 7);
        History.Op newEpoch = ok(history, 2, 1);
        Map<String, Map<String, List<Checker.At>>> stored = stored(kept, newEpoch);
        Checker checker = new Checker(null);
        checker.lostTails.add(new Checker.LostTail("s0", 1, 5));

        checker.checkOps(history, stored);

        assertThat(checker.violations()).isEmpty();
        assertThat(checker.lostWrites).extracting(Checker.LostWrite::op).containsExactly(lost, lostToo);
        assertThat(checker.lostWrites.get(0).toString()).startsWith("s0 e1:6..6");
    }

    @Test
    void withoutALostTailAMissingAcknowledgedWriteIsAViolation() {
        History history = new History();
        History.Op kept = ok(history, 1, 5);
        ok(history, 1, 6);
        Checker checker = new Checker(null);

        checker.checkOps(history, stored(kept));

        assertThat(checker.violations()).hasSize(1).first().asString().contains("acknowledged, but 1 of 1");
        assertThat(checker.lostWrites).isEmpty();
    }

    @Test
    void aLostPositionReusedForAnotherWriteIsAViolationEvenInsideTheLostTail() {
        History history = new History();
        History.Op kept = ok(history, 1, 5);
        ok(history, 1, 6); // acknowledged at e1:6, then lost
        History.Op reused = ok(history, 1, 6); // the resolver gave e1:6 again instead of refusing
        Checker checker = new Checker(null);
        checker.lostTails.add(new Checker.LostTail("s0", 1, 5));

        checker.checkOps(history, stored(kept, reused));

        assertThat(checker.violations()).anySatisfy(v -> assertThat(v).contains("e1:6")
                .contains("acknowledged with two contents"));
        assertThat(checker.violations()).anySatisfy(v -> assertThat(v).contains("e1:6")
                .contains("but stored with " + reused.markers.get(0)));
    }

    private static History.Op ok(History history, long epoch, long position) {
        History.Op op = history.begin("s0", "putItem", id -> List.of("m" + id + ".0"));
        op.outcome = History.Outcome.OK;
        op.epoch = epoch;
        op.firstPosition = op.lastPosition = position;
        return op;
    }

    /** What the outbox holds: each op's marker at its answered position. */
    private static Map<String, Map<String, List<Checker.At>>> stored(History.Op... ops) {
        Map<String, List<Checker.At>> byMarker = new HashMap<>();
        for (History.Op op : ops) {
            byMarker.computeIfAbsent(op.markers.get(0), k -> new ArrayList<>())
                    .add(new Checker.At(op.epoch, op.firstPosition));
        }
        return Map.of("s0", byMarker);
    }
}
