package com.acme.catalog.product.rebuild;

import java.util.Objects;

/**
 * The product itself found that the rebuild's attempt (or the recovery worker's catch-up) can no longer produce a
 * copy of the stream's current epoch, and must start over from a new export. {@link RestartPolicy} accepts it beside
 * the resolver's HTTP 410 ({@code ResolverClient.GoneException}, which stays the resolver's answer and nothing else).
 *
 * <p>The message is {@code CODE: sentence}: the stable {@link Reason} an operator or a test can match, then what
 * happened with the ids involved. It is what a rebuild's {@code error} field and the logs show, never a class name.
 */
public final class RestartRequired extends RuntimeException {

    /** Why a restart is required; the names are stable codes (docs/rebuild.md "Failures and what they mean"). */
    public enum Reason {
        /** The resolver aborted the attempt's export (it does when the export's lease expired). */
        EXPORT_ABORTED,
        /**
         * The resolver FAILED the attempt's export for a reason that says nothing about the data (its status does not
         * mark it {@code permanent}): a new export may succeed.
         */
        EXPORT_FAILED,
        /** The export is of an epoch older than the stream's current one: never loaded (audited). */
        EXPORT_OF_OLD_EPOCH,
        /** The stream's epoch moved past the rebuild's before its cutover: the shadow is of a fenced history. */
        EPOCH_CHANGED_BEFORE_CUTOVER,
        /** A catch-up page of an epoch older than the current one arrived (read just before a rotation). */
        PAGE_OF_OLD_EPOCH
    }

    private final Reason reason;
    private final String sentence;

    /** @param sentence what happened, for an operator, naming the ids involved */
    public RestartRequired(Reason reason, String sentence) {
        super(Objects.requireNonNull(reason, "reason").name() + ": " + Objects.requireNonNull(sentence, "sentence"));
        this.reason = reason;
        this.sentence = sentence;
    }

    public Reason reason() {
        return reason;
    }

    /** @return the operator-readable sentence, without the code */
    public String sentence() {
        return sentence;
    }
}
