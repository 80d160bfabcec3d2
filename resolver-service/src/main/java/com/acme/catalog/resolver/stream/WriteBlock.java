package com.acme.catalog.resolver.stream;

import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.ResultColumns;

/**
 * What stops writes to a stream besides maintenance and epochs, read by the cursor lock from the row it locked, so a
 * write that waited for the lock reads what the lock's holder committed: a bootstrap import's fence
 * (docs/bootstrap-import.md "The import fence") or a move to another resolver database
 * (docs/runbooks/move-stream.md). The bootstrap capability sets and clears them; this package only refuses.
 *
 * @param since  when the fence was taken or the move began (or completed)
 * @param target a move's target; null for an import
 */
public record WriteBlock(Kind kind, Instant since, String target) {

    public enum Kind {
        /** Another session's import holds the stream's fence: 409 {@code IMPORT_IN_PROGRESS}. */
        IMPORT,
        /** This transaction is a chunk of the import that holds the fence: admitted. */
        OWN_IMPORT,
        /**
         * This transaction is a chunk of an import whose fence is gone (its lock session ended, or the fence is not on
         * the row it locked): 503, the import stops.
         */
        IMPORT_LOST,
        /** A move is exporting the stream: 409 {@code STREAM_MOVING}. */
        MOVING,
        /** The stream was moved elsewhere and is retired here: 410 {@code STREAM_MOVED}. */
        MOVED
    }

    /**
     * The transaction-local setting of an import's chunk transactions: the token of the fence they write under
     * ({@code SELECT set_config('resolver.import_token', token, true)}).
     */
    public static final String TOKEN_SETTING = "resolver.import_token";

    /**
     * The cursor lock's {@code write_block} column, over the locked {@code stream_cursor} row: null when nothing
     * blocks. {@code import_fence_held} (V34) is asked only of a row that names a fence's session.
     */
    static final String SQL_KIND = """
            CASE WHEN move_state IS NOT NULL THEN move_state
                 WHEN nullif(current_setting('%1$s', true), '') IS NOT NULL THEN
                      CASE WHEN import_pid IS NOT NULL AND import_token::text = current_setting('%1$s', true)
                                AND import_fence_held(import_pid, tenant, catalog) THEN 'OWN_IMPORT'
                           ELSE 'IMPORT_LOST' END
                 WHEN import_pid IS NULL THEN NULL
                 WHEN import_fence_held(import_pid, tenant, catalog) THEN 'IMPORT'
            END""".formatted(TOKEN_SETTING);

    /** The columns after {@code write_block} the lock reads for a refusal's message. */
    static final String SQL_DETAIL = "coalesce(move_since, import_since) AS block_since, move_target";

    /** What the lock read; null when nothing blocks. */
    static WriteBlock read(ResultColumns.Rows row) throws SQLException {
        String kind = row.getString("write_block");
        if (kind == null) {
            return null;
        }
        OffsetDateTime since = row.getObject("block_since", OffsetDateTime.class);
        return new WriteBlock(Kind.valueOf(kind), since == null ? null : since.toInstant(),
                row.getString("move_target"));
    }

    /**
     * Refuses, by throwing, a write this block stops; the caller's transaction then rolls back with nothing written.
     *
     * @throws WriteBlockedException 409 {@code IMPORT_IN_PROGRESS} or {@code STREAM_MOVING}, 410 {@code STREAM_MOVED}
     * @throws ApiException          503 {@code DATABASE_UNAVAILABLE} for a chunk of an import whose fence is gone
     */
    void refuse(StreamId stream) {
        switch (kind) {
            case OWN_IMPORT -> {
            }
            case IMPORT -> throw new WriteBlockedException(ProblemCode.IMPORT_IN_PROGRESS, "a bootstrap import into "
                    + stream + " holds its import fence (since " + since + "): writes are refused until the import "
                    + "ended (GET /v1/streams/" + stream.tenant() + "/" + stream.catalog() + ")", null, since);
            case MOVING -> throw new WriteBlockedException(ProblemCode.STREAM_MOVING, "stream " + stream
                    + " is being moved to " + target + " (since " + since + "): writes are refused until the move "
                    + "completed, then write there", target, since);
            case MOVED -> throw new WriteBlockedException(ProblemCode.STREAM_MOVED, "stream " + stream + " moved to "
                    + target + " (" + since + ") and is retired here: write there", target, since);
            case IMPORT_LOST -> throw new ApiException(ProblemCode.DATABASE_UNAVAILABLE, "the import fence of "
                    + stream + " this import wrote under is gone (its lock session ended, or a reset opened an "
                    + "epoch without it): the import stops");
            default -> throw new IllegalStateException(kind.name());
        }
    }
}
