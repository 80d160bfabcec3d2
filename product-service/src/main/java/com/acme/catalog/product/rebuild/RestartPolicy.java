package com.acme.catalog.product.rebuild;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpTimeoutException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.FailureText;
import com.acme.catalog.platform.web.TransientDatabaseFailure;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.web.client.ResourceAccessException;

/**
 * What a failed attempt's failure means for the rebuild (docs/rebuild.md "Failures and what they mean"), as a
 * {@link Failure}: a stable code, a sentence for an operator (never an exception's class name) and whether the
 * rebuild retries it (from a new export, within {@code product.rebuild.retry-budget}) or ends FAILED at once.
 * <ul>
 * <li>restart signals, retried: a 410 from the resolver ({@code RESOLVER_GONE}: the lease, cursor or epoch is gone)
 * and the product's own {@link RestartRequired} (its {@link RestartRequired.Reason} is the code);</li>
 * <li>transient, retried: the product's database connection lost ({@code DATABASE_UNAVAILABLE}: SQLState class 08,
 * 57P01 and the rest of {@link TransientDatabaseFailure}), the resolver unreachable ({@code RESOLVER_UNREACHABLE})
 * or answering 5xx ({@code RESOLVER_UNAVAILABLE}), another I/O failure ({@code IO_FAILED}: the object store), and
 * the product's own 503s ({@code DATABASE_UNAVAILABLE}, {@code MAINTENANCE}, {@code OUTCOME_UNKNOWN});</li>
 * <li>permanent, FAILED at once: a corrupt export ({@code CORRUPT_EXPORT}, {@code LOAD_FAILED}), a chain that does not
 * verify ({@code CHAIN_BROKEN}), a refusal of the resolver ({@code RESOLVER_REFUSED}: a 4xx other than 410) or of the
 * product ({@link ApiException}'s code), a {@link PermanentFailure} (its code: an export FAILED permanently), and
 * anything not known here ({@code REBUILD_FAILED}, with the failure's message).</li>
 * </ul>
 * Found by the fault suite (docs/spk-05.md): under dense connection faults 28 of 69 rebuilds ended FAILED, most
 * after three attempts ran out, one because its export FAILED.
 */
final class RestartPolicy {

    /** How a failure bears on the rebuild. */
    enum Kind {
        /** A restart signal: weighed before a stop or a lost worker lease, retried within the budget. */
        SIGNAL,
        /** Says nothing about the data: retried within the budget. */
        TRANSIENT,
        /** About the data, or a refusal: the rebuild ends FAILED at once. */
        PERMANENT
    }

    /**
     * A classified failure.
     *
     * @param code     stable, {@code UPPER_SNAKE}; what operators and tests match
     * @param sentence what happened, for an operator; never an exception's class name
     */
    record Failure(Kind kind, String code, String sentence) {

        boolean retried() {
            return kind != Kind.PERMANENT;
        }

        /**
         * @return whether the failure says the stream's epoch moved past the attempt's: the resolver's 409
         *         {@code EPOCH_MISMATCH} ({@value #EPOCH_CHANGED}), an export or page of an older epoch, or an epoch
         *         change seen before the cutover. The rebuild restarts at once at the new epoch.
         */
        boolean epochMoved() {
            return kind == Kind.SIGNAL && EPOCH_MOVES.contains(code);
        }

        /** @return {@code CODE: sentence}, what {@code error} and the retry reason show */
        String text() {
            return code + ": " + sentence;
        }
    }

    /** The code of a resolver's 409 {@code EPOCH_MISMATCH}: the stream's epoch moved past the attempt's. */
    static final String EPOCH_CHANGED = "EPOCH_CHANGED";
    private static final Set<String> EPOCH_MOVES = Set.of(EPOCH_CHANGED,
            RestartRequired.Reason.EPOCH_CHANGED_BEFORE_CUTOVER.name(),
            RestartRequired.Reason.EXPORT_OF_OLD_EPOCH.name(), RestartRequired.Reason.PAGE_OF_OLD_EPOCH.name());
    private static final int MAX_DEPTH = 16;
    private static final int MAX_DETAIL = 400;
    /** The product's own answers that mean "not now" rather than "no". */
    private static final Set<ProblemCode> TRANSIENT_CODES = Set.of(ProblemCode.DATABASE_UNAVAILABLE,
            ProblemCode.MAINTENANCE, ProblemCode.OUTCOME_UNKNOWN);

    private RestartPolicy() {
    }

    /** @return what {@code failure} means for the rebuild; never null */
    static Failure classify(Throwable failure) {
        if (failure instanceof RestartRequired r) {
            return new Failure(Kind.SIGNAL, r.reason().name(), r.sentence());
        }
        if (failure instanceof ResolverClient.GoneException gone) {
            return new Failure(Kind.SIGNAL, "RESOLVER_GONE", gone(gone));
        }
        if (failure instanceof PermanentFailure p) {
            return new Failure(Kind.PERMANENT, p.code(), p.sentence());
        }
        if (TransientDatabaseFailure.isTransient(failure)) {
            return new Failure(Kind.TRANSIENT, "DATABASE_UNAVAILABLE",
                    "the product's database connection failed (" + detail(failure) + ")");
        }
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH && seen.put(t, Boolean.TRUE) == null;
                t = t.getCause(), depth++) {
            if (t instanceof CorruptExportException) {
                // an I/O exception by type, but about the export's bytes
                return new Failure(Kind.PERMANENT, "CORRUPT_EXPORT",
                        "the export is not what its manifest says (" + detail(t) + ")");
            }
            if (t instanceof ShadowLoader.LoadFailedException) {
                return new Failure(Kind.PERMANENT, "LOAD_FAILED",
                        "the export could not be loaded (" + detail(t) + ")");
            }
            if (t instanceof ApiException api) {
                if (TRANSIENT_CODES.contains(api.code())) {
                    return new Failure(Kind.TRANSIENT, api.code().name(), clean(api.getMessage()));
                }
                return new Failure(Kind.PERMANENT, api.code().name(), clean(api.getMessage()));
            }
            if (t instanceof ResolverClient.UnavailableException) {
                return new Failure(Kind.TRANSIENT, "RESOLVER_UNAVAILABLE",
                        "the resolver could not serve the " + clean(t.getMessage()));
            }
            if (t instanceof ResolverClient.RefusedException refused && refused.status() == 409
                    && refused.code().orElse(null) == ProblemCode.EPOCH_MISMATCH) {
                // the stream was rotated while the attempt ran (its lease, export or consumer registration is of
                // the old epoch): a restart signal, never a refusal
                return new Failure(Kind.SIGNAL, EPOCH_CHANGED, "the resolver answered the "
                        + clean(callOf(refused.getMessage(), " answered 409")) + " with 409 EPOCH_MISMATCH (the "
                        + "stream's epoch moved past the attempt's); restarting at the new epoch");
            }
            if (t instanceof ResolverClient.RefusedException) {
                return new Failure(Kind.PERMANENT, "RESOLVER_REFUSED",
                        "the resolver refused the " + clean(t.getMessage()));
            }
            if (t instanceof ResourceAccessException || t instanceof ConnectException || t instanceof SocketException
                    || t instanceof HttpTimeoutException) {
                return new Failure(Kind.TRANSIENT, "RESOLVER_UNREACHABLE",
                        "the resolver did not answer (" + detail(failure) + ")");
            }
            if (t instanceof IOException || t instanceof UncheckedIOException) {
                return new Failure(Kind.TRANSIENT, "IO_FAILED",
                        "reading from the resolver or the object store failed (" + detail(failure) + ")");
            }
        }
        return new Failure(Kind.PERMANENT, "REBUILD_FAILED", detail(failure));
    }

    /** @return the failure as {@code CODE: sentence}, for one-line reasons (an escaped failure, a log) */
    static String describe(Throwable failure) {
        return classify(failure).text();
    }

    private static String gone(ResolverClient.GoneException gone) {
        return "the resolver answered the " + clean(callOf(gone.getMessage(), ": 410")) + " with 410"
                + gone.code().map(c -> " " + c.name()).orElse("") + " (its lease, cursor or epoch is gone)";
    }

    /** @return the call a resolver client's message names before {@code status} ("a call" when it names none) */
    private static String callOf(String message, String status) {
        String m = message == null ? "" : message;
        int at = m.indexOf(status);
        return at > 0 ? m.substring(0, at) : "a call";
    }

    /**
     * @return what the failure says, from its own message and its innermost cause's (a wrapper's message often names
     *         only the call, its root cause what went wrong), without class names; never blank
     */
    static String detail(Throwable failure) {
        return FailureText.detail(failure, MAX_DETAIL, "no message; the product's log has the details");
    }

    /** @return {@code message} without Java class names ({@link FailureText#clean}); never null */
    static String clean(String message) {
        return FailureText.clean(message);
    }
}
