package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;
import com.acme.catalog.resolver.stream.WriteKeys.Scoped;
import com.acme.catalog.resolver.stream.WriteKeys.Stored;

import org.junit.jupiter.api.Test;

/** What a physical transaction does with each keyed write, decided from the writes and the keys found. */
class KeyPlanTest {

    private static final String A = "a".repeat(64);
    private static final String B = "b".repeat(64);

    @Test
    void appliesUnkeyedAndNewKeysAndRepeatsStoredOnes() {
        WriteResult stored = new WriteResult(1, 1, 2, UUID.randomUUID(), 1);
        List<LogicalWrite> writes = List.of(write(null, null), write("new", A), write("old", A), write("new", A));
        KeyPlan plan = KeyPlan.of(writes, Map.of(new Scoped("w", "old"), new Stored(A, stored)));

        assertThat(plan.toApply()).hasSize(2);
        assertThat(plan.writeIndex(1)).isEqualTo(1);
        WriteResult r0 = new WriteResult(1, 3, 3, UUID.randomUUID(), 1);
        WriteResult r1 = new WriteResult(1, 4, 4, UUID.randomUUID(), 1);
        assertThat(plan.results(List.of(r0, r1))).containsExactly(r0, r1, stored, r1);
        assertThat(plan.toRemember(List.of(r0, r1))).extracting(r -> r.key().value()).containsExactly("new");
    }

    @Test
    void aKeyWithAnotherFingerprintFailsAsThatWritesOwnFailure() {
        WriteResult stored = new WriteResult(1, 1, 1, UUID.randomUUID(), 1);
        assertThatThrownBy(() -> KeyPlan.of(List.of(write(null, null), write("old", B)),
                Map.of(new Scoped("w", "old"), new Stored(A, stored))))
                .isInstanceOfSatisfying(LogicalTransactionFailure.class, f -> {
                    assertThat(f.index()).isEqualTo(1);
                    assertThat(((ApiException) f.failure()).code()).isEqualTo(ProblemCode.IDEMPOTENCY_KEY_REUSED);
                });
        assertThatThrownBy(() -> KeyPlan.of(List.of(write("k", A), write("k", B)), Map.of()))
                .isInstanceOfSatisfying(LogicalTransactionFailure.class, f -> assertThat(f.index()).isEqualTo(1));
    }

    @Test
    void keysOfOtherIdentitiesNeverMeet() {
        List<LogicalWrite> writes = List.of(write("k", A), new LogicalWrite(List.of(),
                new IdempotencyKey("other", "k", B)));
        assertThat(KeyPlan.of(writes, Map.of()).toApply()).hasSize(2);
    }

    @Test
    void nothingToApplyWhenEveryWriteRepeats() {
        WriteResult stored = new WriteResult(1, 1, 1, UUID.randomUUID(), 1);
        KeyPlan plan = KeyPlan.of(List.of(write("k", A), write("k", A)),
                Map.of(new Scoped("w", "k"), new Stored(A, stored)));
        assertThat(plan.nothingToApply()).isTrue();
        assertThat(plan.results(List.of())).containsExactly(stored, stored);
    }

    private static LogicalWrite write(String key, String fingerprint) {
        return new LogicalWrite(List.of(), key == null ? null : new IdempotencyKey("w", key, fingerprint));
    }
}
