package com.acme.catalog.resolver.idempotency;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Tells a write whose commit failed from one that failed before it: when every statement succeeded and then the
 * commit failed (the connection lost during or after the commit, the server gone), the transaction may be committed
 * or not, whole either way, and the client is told exactly that (503 {@code OUTCOME_UNKNOWN} with
 * {@code Retry-After}), not 500 or the 503 of an unreachable database, which say nothing about its write's fate. A
 * retry with the write's idempotency key learns it. A failure before the commit keeps its own answer: nothing of such
 * a write is committed.
 */
public final class CommitOutcome {

    private static final Logger log = LoggerFactory.getLogger(CommitOutcome.class);

    private CommitOutcome() {
    }

    /**
     * Runs {@code work} in a transaction of {@code tx} and commits it.
     *
     * @param what names the write for the log and the problem's detail ("a write to stream acme/books")
     * @throws ApiException {@code OUTCOME_UNKNOWN} when the commit (or anything after {@code work} returned) failed
     */
    public static <T> T execute(TransactionTemplate tx, String what, TransactionCallback<T> work) {
        boolean[] done = new boolean[1];
        try {
            return tx.execute(status -> {
                T result = work.doInTransaction(status);
                done[0] = true;
                return result;
            });
        } catch (RuntimeException e) {
            if (done[0]) {
                throw unknown(what, e);
            }
            throw e;
        }
    }

    /** The answer to a commit of {@code what} that failed with {@code failure}: 503 {@code OUTCOME_UNKNOWN}. */
    public static ApiException unknown(String what, RuntimeException failure) {
        log.warn("the commit of {} failed; its outcome is unknown: {}", what, failure.toString());
        return new ApiException(ProblemCode.OUTCOME_UNKNOWN, "the commit of " + what + " failed (connection lost): "
                + "it may or may not be committed, whole or not at all; retry it with the same Idempotency-Key to "
                + "learn which", failure);
    }
}
