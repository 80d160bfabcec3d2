package com.acme.catalog.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.acme.catalog.bench.MoveScenario.Attempt;

import org.junit.jupiter.api.Test;

/**
 * How the move scenario judges its writer's answers: the refused window runs from the first refused write to the
 * last 409 STREAM_MOVING and must lie within the script's run; no write may be accepted once one was refused; every
 * write after the move must answer 410 STREAM_MOVED naming the target. Times are seconds (as nanoTime) from 0, the
 * move running from 1 to 9.
 */
class MoveScenarioTest {

    private static final String B = "http://b:8081";
    private static final long START = nanos(1);
    private static final long END = nanos(9);

    @Test
    void aMoveAsDocumentedRefusesWritesOnlyWhileItRunsAndAnswers410After() {
        Map<String, Object> m = summarise(documented());
        assertThat(m.get("withinMove")).isEqualTo(true);
        assertThat(m.get("refusedSeconds")).isEqualTo(7.1); // sent at 1.5, the last 409 answered at 8.6
        assertThat(m.get("acceptedAfterRefusal")).isEqualTo(0L);
        assertThat(m.get("refusedAfterMoveWith410")).isEqualTo(true);
        assertThat(m.get("acceptedBeforeMove")).isEqualTo(2L);
        assertThat(m.get("refusedMoving")).isEqualTo(8L);
        assertThat(m.get("other")).isEqualTo(List.of());
    }

    @Test
    void aWriteAcceptedAfterTheFirstRefusalIsCounted() {
        List<Attempt> a = documented();
        a.add(5, attempt(4.2, 200, null, null));
        assertThat(summarise(a).get("acceptedAfterRefusal")).isEqualTo(1L);
    }

    @Test
    void aSourceStillMovingAfterTheScriptEndedIsOutsideTheMoveAndNot410() {
        List<Attempt> a = documented();
        a.removeIf(x -> x.sent() > END);
        a.add(attempt(9.5, 409, "STREAM_MOVING", B));
        Map<String, Object> m = summarise(a);
        assertThat(m.get("withinMove")).isEqualTo(false);
        assertThat(m.get("refusedAfterMoveWith410")).isEqualTo(false);
    }

    @Test
    void a410NamingAnotherResolverIsNotAsDocumented() {
        List<Attempt> a = documented();
        a.add(attempt(9.9, 410, "STREAM_MOVED", "http://elsewhere:8081"));
        assertThat(summarise(a).get("refusedAfterMoveWith410")).isEqualTo(false);
    }

    @Test
    void noWriteRefusedWhileMovingIsNoWindowWithinTheMove() {
        List<Attempt> a = documented();
        a.removeIf(x -> "STREAM_MOVING".equals(x.code()));
        Map<String, Object> m = summarise(a);
        assertThat(m.get("withinMove")).isEqualTo(false);
        assertThat(m.get("refusedSeconds")).isEqualTo(0.0);
    }

    /** Accepted at 0.2 and 0.6 and 1.1, refused (409) from 1.5 to 8.5, 410 naming B at 8.9 and after the move. */
    private static List<Attempt> documented() {
        List<Attempt> a = new ArrayList<>(List.of(attempt(0.2, 200, null, null), attempt(0.6, 200, null, null),
                attempt(1.1, 200, null, null)));
        for (double t = 1.5; t < 8.6; t += 1.0) {
            a.add(attempt(t, 409, "STREAM_MOVING", B));
        }
        a.add(attempt(8.9, 410, "STREAM_MOVED", B));
        a.add(attempt(9.3, 410, "STREAM_MOVED", B));
        a.add(attempt(9.7, 410, "STREAM_MOVED", B));
        return a;
    }

    /** A write sent at {@code t} seconds and answered 0.1 s later. */
    private static Attempt attempt(double t, int status, String code, String location) {
        return new Attempt(nanos(t), nanos(t + 0.1), status, code, location);
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    private static Map<String, Object> summarise(List<Attempt> a) {
        return MoveScenario.summary(a, START, END, B);
    }
}
