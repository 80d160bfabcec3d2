package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link Checker#checkRetries}: a write left unknown is a violation unless one fault lasted its whole retry time. */
class CheckerRetriesTest {

    private static final long S = 1_000_000_000L;

    @Test
    void aWriteStillUnknownIsAViolationUnlessAFaultCoveredItsWholeRetryTime() {
        History history = new History();
        History.Op known = unknownFrom(history, 10 * S, 190 * S);
        known.outcome = History.Outcome.OK; // learned by a retry
        History.Op uncovered = unknownFrom(history, 10 * S, 190 * S);
        History.Op covered = unknownFrom(history, 300 * S, 480 * S);
        Checker checker = new Checker(null);

        checker.checkRetries(history, List.of(new Faults.Window(Faults.Kind.KILL_RESOLVER, 20 * S, 200 * S),
                new Faults.Window(Faults.Kind.PROXY_STALL, 299 * S, 481 * S)), 180_000);

        assertThat(checker.violations()).hasSize(1).first().asString().startsWith(uncovered.toString())
                .contains("still unknown after 180 s");
        assertThat(checker.unknownExcused).hasSize(1).first().asString().startsWith(covered.toString())
                .contains("PROXY_STALL");
    }

    @Test
    void aReusedKeyIsAViolation() {
        History history = new History();
        History.Op op = history.begin("s0", "putItem", id -> List.of("m" + id + ".0"));
        op.outcome = History.Outcome.FAILED;
        op.reason = "422 IDEMPOTENCY_KEY_REUSED";
        Checker checker = new Checker(null);

        checker.checkRetries(history, List.of(), 180_000);

        assertThat(checker.violations()).hasSize(1).first().asString().contains("reused key");
    }

    private static History.Op unknownFrom(History history, long firstAmbiguous, long deadline) {
        History.Op op = history.begin("s0", "putItem", id -> List.of("m" + id + ".0"));
        op.outcome = History.Outcome.UNKNOWN;
        op.firstAmbiguousNanos = firstAmbiguous;
        op.retryDeadlineNanos = deadline;
        return op;
    }
}
