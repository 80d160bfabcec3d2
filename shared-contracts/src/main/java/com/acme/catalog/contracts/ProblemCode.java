package com.acme.catalog.contracts;

/** Stable {@code code} members of problem+json bodies, with the HTTP status each is answered with. */
public enum ProblemCode {
    INVALID_ID(400),
    INVALID_BODY(400),
    PAYLOAD_TOO_LARGE(413),
    /** A consumer's deliveryUrl is outside RELAY_ALLOWED_DELIVERY_URLS: the relay would send its token there. */
    DELIVERY_URL_NOT_ALLOWED(400),
    /** The {@code Idempotency-Key} header is not 1 to 128 printable ASCII characters, or is sent twice. */
    INVALID_IDEMPOTENCY_KEY(400),
    UNAUTHENTICATED(401),
    FORBIDDEN(403),
    NOT_FOUND(404),
    METHOD_NOT_ALLOWED(405),
    /** The request's {@code Accept} excludes JSON; the problem itself is still problem+json. */
    NOT_ACCEPTABLE(406),
    REVISION_CONFLICT(409),
    EPOCH_MISMATCH(409),
    EXPORT_NOT_READY(409),
    DESTINATION_NOT_EMPTY(409),
    /**
     * A bootstrap import holds the stream's import fence (or another import its lock): writes to the stream are
     * refused until the import ended, nothing written.
     */
    IMPORT_IN_PROGRESS(409),
    /**
     * The stream is being moved to another resolver database: writes are refused until the move completed (then
     * {@link #STREAM_MOVED}) or was cancelled; the problem's {@code location} names the target.
     */
    STREAM_MOVING(409),
    /** An epoch rotation needs the resolver in maintenance first. */
    MAINTENANCE_REQUIRED(409),
    /** Another product instance holds the stream's recovery worker lease (it runs the stream's rebuilds). */
    WORKER_LEASE_HELD(409),
    /**
     * The product instance's projection version is older than the version of the stream's serving (or building)
     * generation: it never rebuilds a stream back to an older version (docs/runbooks/projection-upgrade.md).
     */
    PROJECTION_VERSION_OLDER(409),
    /** The review case already has its decision (decisions are immutable, one per case). */
    CASE_DECIDED(409),
    /**
     * A fleet epoch rotation is running: resolver maintenance stays on until it ended (unless turned off with
     * {@code "force":true}), another scope is not started beside it, and a stream it has still to rotate is not
     * rotated or reset by hand meanwhile.
     */
    ROTATION_RUNNING(409),
    /**
     * The stream's accepted revisions are cited by review decisions, which are immutable: its state cannot be reset
     * to nothing.
     */
    STREAM_HAS_DECISIONS(409),
    /** The request cites an evidence artifact (or claims of one) that evidence retention has expired. */
    EVIDENCE_EXPIRED(409),
    CURSOR_STALE(410),
    LEASE_EXPIRED(410),
    EPOCH_CHANGED(410),
    /**
     * The stream was moved to another resolver database and is retired here for good: the problem's {@code location}
     * names where it lives now; write there.
     */
    STREAM_MOVED(410),
    POSITION_AHEAD(422),
    CHAIN_BROKEN(422),
    INVALID_EVENT(422),
    /**
     * The {@code Idempotency-Key} was used before, by the same token identity on the same stream, for another
     * request (another body, path or method): nothing is written.
     */
    IDEMPOTENCY_KEY_REUSED(422),
    INTERNAL(500),
    /**
     * The stream's serving generation was built by a newer projection version than this product instance's: the
     * instance does not write into it with its older derivations; answered with {@code Retry-After} (the relay
     * retries, and an instance of the newer version applies it).
     */
    PROJECTION_VERSION_NEWER(503),
    /**
     * A bootstrap import asked to wait until the product serves it ({@code waitReady}) committed every event, but
     * the product did not report the stream current at the import's last position with equal checksums within the
     * wait: the problem's {@code import} summary says which was not ({@code verification}).
     */
    PRODUCT_NOT_READY(504),
    MAINTENANCE(503),
    STREAM_FENCED(503),
    HISTORY_ROLLED_BACK(503),
    /** The control store (history epochs) could not be read within the configured grace: writes fail closed. */
    CONTROL_STORE_UNAVAILABLE(503),
    /**
     * The service's database could not be reached or dropped the connection (connection lost or refused, the
     * server shutting down or restarting): transient, answered with {@code Retry-After}. A write in flight when
     * it happened may or may not be committed (its outcome is unknown); nothing is ever half committed.
     */
    DATABASE_UNAVAILABLE(503),
    /**
     * The write's commit failed (its connection lost during or after the commit), so the service cannot know whether
     * it was committed; answered with {@code Retry-After}. It is committed whole or not at all: retry it with the same
     * {@code Idempotency-Key} to learn which (the original result if it was, a fresh write if not).
     */
    OUTCOME_UNKNOWN(503);

    private final int status;

    ProblemCode(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }
}
