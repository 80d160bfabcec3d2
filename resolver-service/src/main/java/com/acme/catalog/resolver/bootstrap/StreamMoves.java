package com.acme.catalog.resolver.bootstrap;

import java.time.Instant;
import java.time.OffsetDateTime;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.stream.WriteBlockedException;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The source side of moving a stream to another resolver database (docs/runbooks/move-stream.md), each step in one
 * transaction that holds the stream's open cursor row, the row every write locks first:
 * <ol>
 *   <li>{@link #begin}: MOVING. A write holding the row finishes first; every later one is refused (409
 *       {@code STREAM_MOVING}) until the move completed or was cancelled; the export of the stream goes on.</li>
 *   <li>{@link #complete}: MOVED, for good. Writes answer 410 {@code STREAM_MOVED} naming the target; the relay
 *       delivers nothing more of the stream; a rotation carries the state to the next epoch ({@link FenceCarry}).</li>
 *   <li>{@link #cancel}: back to writable, before completion only.</li>
 * </ol>
 * Repeating a step with the same target answers its result again.
 */
@Service
class StreamMoves {

    private static final String SQL_LOCK = """
            SELECT epoch, position, move_state, move_target, move_since,
                   CASE WHEN import_pid IS NULL THEN false
                        ELSE import_fence_held(import_pid, tenant, catalog) END AS importing
              FROM stream_cursor
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL
               FOR UPDATE
            """;
    private static final String SQL_BEGIN = """
            UPDATE stream_cursor SET move_state = 'MOVING', move_target = ?, move_since = clock_timestamp(),
                   move_reason = ?, move_by = ?
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL AND move_state IS NULL
            """;
    private static final String SQL_COMPLETE = """
            UPDATE stream_cursor SET move_state = 'MOVED', move_since = clock_timestamp()
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL AND move_state = 'MOVING' AND move_target = ?
            """;
    private static final String SQL_CANCEL = """
            UPDATE stream_cursor SET move_state = NULL, move_target = NULL, move_since = NULL, move_reason = NULL,
                   move_by = NULL
             WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL AND move_state = 'MOVING'
            """;

    private final TransactionTemplate tx;
    private final JdbcClient jdbc;

    StreamMoves(TransactionTemplate tx, JdbcClient jdbc) {
        this.tx = tx;
        this.jdbc = jdbc;
    }

    /**
     * Starts moving the stream to {@code target}: its writes are refused from this commit on.
     *
     * @throws ApiException 404 without an open cursor, 409 {@code IMPORT_IN_PROGRESS} while an import holds it, 409
     *                      {@code STREAM_MOVING} while it moves elsewhere, 410 {@code STREAM_MOVED} once moved
     */
    MoveView begin(StreamId s, String target, String reason, String by) {
        return tx.execute(status -> {
            Locked l = lock(s);
            if (l.importing()) {
                throw new ApiException(ProblemCode.IMPORT_IN_PROGRESS, "a bootstrap import into " + s + " holds its "
                        + "import fence: a stream is moved once the import ended");
            }
            if ("MOVED".equals(l.state())) {
                throw moved(s, l);
            }
            if ("MOVING".equals(l.state())) {
                if (!l.target().equals(target)) {
                    throw new WriteBlockedException(ProblemCode.STREAM_MOVING, "stream " + s + " is being moved to "
                            + l.target() + " already; cancel that move first (DELETE …/move)", l.target(), l.since());
                }
                return view(s, l);
            }
            jdbc.sql(SQL_BEGIN).params(target, reason, by, s.tenant(), s.catalog()).update();
            return view(s, lock(s));
        });
    }

    /**
     * Retires the stream here for good: it lives at {@code target} now.
     *
     * @throws ApiException 404 without an open cursor or a move under way, 409 {@code STREAM_MOVING} for a move to
     *                      another target, 410 {@code STREAM_MOVED} when it moved elsewhere
     */
    MoveView complete(StreamId s, String target) {
        return tx.execute(status -> {
            Locked l = lock(s);
            if (l.state() == null) {
                throw new ApiException(ProblemCode.NOT_FOUND, "no move of " + s + " is under way (POST …/move first)");
            }
            if (!l.target().equals(target)) {
                throw "MOVED".equals(l.state()) ? moved(s, l) : new WriteBlockedException(ProblemCode.STREAM_MOVING,
                        "stream " + s + " is being moved to " + l.target() + ", not " + target, l.target(), l.since());
            }
            if ("MOVING".equals(l.state())) {
                jdbc.sql(SQL_COMPLETE).params(s.tenant(), s.catalog(), target).update();
            }
            return view(s, lock(s));
        });
    }

    /**
     * Cancels a move before it completed: the stream takes writes again.
     *
     * @throws ApiException 404 without an open cursor or a move under way, 410 {@code STREAM_MOVED} once moved
     */
    MoveView cancel(StreamId s) {
        return tx.execute(status -> {
            Locked l = lock(s);
            if (l.state() == null) {
                throw new ApiException(ProblemCode.NOT_FOUND, "no move of " + s + " is under way");
            }
            if ("MOVED".equals(l.state())) {
                throw moved(s, l);
            }
            jdbc.sql(SQL_CANCEL).params(s.tenant(), s.catalog()).update();
            return view(s, lock(s));
        });
    }

    private Locked lock(StreamId s) {
        return jdbc.sql(SQL_LOCK).params(s.tenant(), s.catalog()).query((rs, n) -> {
            OffsetDateTime since = rs.getObject("move_since", OffsetDateTime.class);
            return new Locked(rs.getLong("epoch"), rs.getLong("position"), rs.getString("move_state"),
                    rs.getString("move_target"), since == null ? null : since.toInstant(), rs.getBoolean("importing"));
        }).optional().orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND, "stream " + s + " has no cursor"));
    }

    private static WriteBlockedException moved(StreamId s, Locked l) {
        return new WriteBlockedException(ProblemCode.STREAM_MOVED, "stream " + s + " moved to " + l.target() + " ("
                + l.since() + ") and is retired here", l.target(), l.since());
    }

    private static MoveView view(StreamId s, Locked l) {
        return new MoveView(s.tenant(), s.catalog(), l.state(), l.target(), l.since(), l.epoch(), l.position());
    }

    private record Locked(long epoch, long position, String state, String target, Instant since, boolean importing) {
    }

    /**
     * A stream's move as the source holds it: {@code state} MOVING or MOVED (null after a cancel), the target, since
     * when, and the stream's epoch and cursor (a move fences the cursor: it no longer advances).
     */
    record MoveView(String tenant, String catalog, String state, String target, Instant since, long epoch,
            long cursor) {
    }

    /** The body of {@code POST …/move} and {@code POST …/move/complete}: the target and, to begin, why. */
    record MoveRequest(String target, String reason) {
        MoveRequest {
            if (target == null || target.isBlank() || target.length() > 500
                    || !target.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
                throw new ApiException(ProblemCode.INVALID_BODY, "target must be 1-500 printable ASCII characters "
                        + "naming where the stream goes (the target resolver's URL)");
            }
            if (reason != null && reason.length() > 500) {
                throw new ApiException(ProblemCode.INVALID_BODY, "reason must be at most 500 characters");
            }
        }
    }
}
