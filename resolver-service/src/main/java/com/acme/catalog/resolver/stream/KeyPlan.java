package com.acme.catalog.resolver.stream;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.resolver.idempotency.IdempotencyKey;
import com.acme.catalog.resolver.stream.WriteKeys.Scoped;
import com.acme.catalog.resolver.stream.WriteKeys.Stored;

/**
 * What a physical transaction does with each of its logical writes once their keys have been looked up under the
 * cursor lock: apply it (unkeyed, or keyed with a key not seen before), answer the stored result of its key (a retry
 * of a committed write: nothing written), or answer what an earlier write of the same group with the same key gets
 * (two retries coalesced together: the key is applied once). A key seen with another request's fingerprint is
 * refused ({@code IDEMPOTENCY_KEY_REUSED}) as that write's own failure, before anything is applied. A pure function of
 * the writes and the keys found, so a coalesced group and the same writes one by one decide alike.
 */
final class KeyPlan {

    private final List<LogicalWrite> writes;
    /** Per write: -1 applied; -2 answered from {@link #stored}; otherwise the index of the write it repeats. */
    private final int[] source;
    private final Map<Integer, WriteResult> stored = new HashMap<>();
    private final List<Integer> appliedIndexes = new ArrayList<>();

    private KeyPlan(List<LogicalWrite> writes) {
        this.writes = writes;
        this.source = new int[writes.size()];
    }

    /**
     * @param found the stored keys among the writes' keys
     * @throws LogicalTransactionFailure for the first write whose key is known with another fingerprint
     */
    static KeyPlan of(List<LogicalWrite> writes, Map<Scoped, Stored> found) {
        KeyPlan plan = new KeyPlan(writes);
        Map<Scoped, Integer> firstInGroup = new HashMap<>();
        for (int i = 0; i < writes.size(); i++) {
            IdempotencyKey key = writes.get(i).key();
            if (key == null) {
                plan.apply(i);
                continue;
            }
            Scoped scoped = Scoped.of(key);
            Stored s = found.get(scoped);
            Integer earlier = firstInGroup.putIfAbsent(scoped, i);
            String fingerprint = s != null ? s.fingerprint()
                    : earlier != null ? writes.get(earlier).key().fingerprint() : null;
            if (fingerprint != null && !fingerprint.equals(key.fingerprint())) {
                throw new LogicalTransactionFailure(i, key.reused());
            }
            if (s != null) {
                plan.source[i] = -2;
                plan.stored.put(i, s.result());
            } else if (earlier != null) {
                plan.source[i] = earlier;
            } else {
                plan.apply(i);
            }
        }
        return plan;
    }

    private void apply(int i) {
        source[i] = -1;
        appliedIndexes.add(i);
    }

    /** The changes of the writes to apply, in order. */
    List<List<Change>> toApply() {
        List<List<Change>> out = new ArrayList<>(appliedIndexes.size());
        for (int i : appliedIndexes) {
            out.add(writes.get(i).changes());
        }
        return out;
    }

    /** The index among all writes of the {@code n}-th write applied. */
    int writeIndex(int n) {
        return appliedIndexes.get(n);
    }

    /** The keys to store with the results of the writes applied ({@code applied} in the order of {@link #toApply}). */
    List<WriteKeys.Remembered> toRemember(List<WriteResult> applied) {
        List<WriteKeys.Remembered> out = new ArrayList<>();
        for (int n = 0; n < applied.size(); n++) {
            IdempotencyKey key = writes.get(appliedIndexes.get(n)).key();
            if (key != null) {
                out.add(new WriteKeys.Remembered(key, applied.get(n)));
            }
        }
        return out;
    }

    /** One result per write, in order: the applied ones' own, the repeated ones' original. */
    List<WriteResult> results(List<WriteResult> applied) {
        WriteResult[] out = new WriteResult[writes.size()];
        for (int n = 0; n < applied.size(); n++) {
            out[appliedIndexes.get(n)] = applied.get(n);
        }
        for (int i = 0; i < out.length; i++) {
            if (source[i] == -2) {
                out[i] = stored.get(i);
            } else if (source[i] >= 0) {
                out[i] = out[source[i]];
            }
        }
        return List.of(out);
    }

    /** Whether every write is a repeat: nothing to write. */
    boolean nothingToApply() {
        return appliedIndexes.isEmpty();
    }
}
