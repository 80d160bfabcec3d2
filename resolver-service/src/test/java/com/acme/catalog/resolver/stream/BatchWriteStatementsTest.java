package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.sql.BoundSql;
import com.acme.catalog.resolver.stream.BatchWriteRepository.ItemRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.MappingRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.PolicyRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.ReleaseRow;
import com.acme.catalog.resolver.stream.BatchWriteRepository.Rows;
import com.acme.catalog.resolver.stream.OutboxRepository.OutboxRow;
import com.acme.catalog.resolver.stream.StateAccess.RevisionRow;

import org.junit.jupiter.api.Test;

/**
 * The write path's statements as {@link BoundSql} assembles them: the text PostgreSQL receives is the text the
 * hand-written statements had (whitespace aside, so the same plans), and the parameters come in the order the
 * hand-written column transposers produced.
 */
class BatchWriteStatementsTest {

    private static final StreamId S = new StreamId("acme", "shoes");
    private static final String D = "0".repeat(64);

    private static final String OLD_PREFETCH = """
            SELECT 'item' AS kind, q.id, a.revision, a.deleted
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision, deleted FROM item
                                   WHERE tenant = ? AND catalog = ? AND item_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'mapping', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM mapping
                                   WHERE tenant = ? AND catalog = ? AND mapping_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'policy', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM policy
                                   WHERE tenant = ? AND catalog = ? AND policy_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'release', q.id, a.revision, false
              FROM unnest(?::text[]) AS q(id)
              CROSS JOIN LATERAL (SELECT revision FROM release
                                   WHERE tenant = ? AND catalog = ? AND release_id = q.id OFFSET 0) a
            UNION ALL
            SELECT 'live-item-revision', q.item_id, q.revision, false
              FROM unnest(?::text[], ?::int[]) AS q(item_id, revision)
              CROSS JOIN LATERAL (SELECT 1 FROM accepted_revision
                                   WHERE tenant = ? AND catalog = ? AND aggregate_type = 'item'
                                     AND aggregate_id = q.item_id AND revision = q.revision AND NOT deleted
                                  OFFSET 0) a
            """;

    private static final String OLD_WRITE_ALL = """
            WITH revisions AS (
                INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content,
                                               deleted, epoch, position, event_id)
                SELECT ?, ?, u.aggregate_type, u.aggregate_id, u.revision, u.content::jsonb, u.deleted, u.epoch,
                       u.position, u.event_id
                  FROM unnest(?::text[], ?::text[], ?::int[], string_to_array(?, chr(30)), ?::boolean[], ?::bigint[], ?::bigint[],
                              ?::uuid[])
                       AS u(aggregate_type, aggregate_id, revision, content, deleted, epoch, position, event_id) /*guard*/
                RETURNING aggregate_type, aggregate_id, revision, content
            ), items AS (
                INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
                SELECT ?, ?, u.item_id, u.revision,
                       CASE WHEN u.deleted THEN '{}'::jsonb ELSE r.content -> 'attributes' END,
                       u.deleted, u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::boolean[], ?::bigint[], ?::bigint[])
                       AS u(item_id, revision, deleted, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'item' AND r.aggregate_id = u.item_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, item_id) DO UPDATE
                   SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), mappings AS (
                INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
                SELECT ?, ?, u.mapping_id, u.revision, u.source, u.target, u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::bigint[], ?::bigint[])
                       AS u(mapping_id, revision, source, target, epoch, position) /*guard*/
                ON CONFLICT (tenant, catalog, mapping_id) DO UPDATE
                   SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), policies AS (
                INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
                SELECT ?, ?, u.policy_id, u.revision, r.content -> 'rules', u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::bigint[], ?::bigint[])
                       AS u(policy_id, revision, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'policy' AND r.aggregate_id = u.policy_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, policy_id) DO UPDATE
                   SET revision = excluded.revision, rules = excluded.rules,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), releases AS (
                INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
                SELECT ?, ?, u.release_id, u.revision, u.visibility, r.content -> 'items', u.epoch, u.position
                  FROM unnest(?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[])
                       AS u(release_id, revision, visibility, epoch, position)
                  LEFT JOIN revisions r
                         ON r.aggregate_type = 'release' AND r.aggregate_id = u.release_id AND r.revision = u.revision
                       /*guard*/
                ON CONFLICT (tenant, catalog, release_id) DO UPDATE
                   SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                       epoch = excluded.epoch, position = excluded.position, updated_at = now()
            ), outboxed AS (
                INSERT INTO outbox (tenant, catalog, epoch, position, event_id, transaction_id, transaction_ordinal,
                                    transaction_count, event_type, aggregate_type, aggregate_id, revision, wire,
                                    chain_digest, occurred_at)
                SELECT ?, ?, u.epoch, u.position, u.event_id, u.transaction_id, u.ordinal, u.count, u.event_type,
                       u.aggregate_type, u.aggregate_id, u.revision, u.wire, u.chain_digest, u.occurred_at
                  FROM unnest(?::bigint[], ?::bigint[], ?::uuid[], ?::uuid[], ?::int[], ?::int[], ?::text[],
                              ?::text[], ?::text[], ?::int[], string_to_array(?, chr(30)), ?::text[], ?::timestamptz[])
                       AS u(epoch, position, event_id, transaction_id, ordinal, count, event_type, aggregate_type,
                            aggregate_id, revision, wire, chain_digest, occurred_at) /*guard*/
            ), advanced AS (
            """ + CursorRepository.SQL_ADVANCE.strip() + """
             RETURNING 1
            )
            SELECT pg_notify('outbox_committed', ?) FROM advanced
            """;

    @Test
    void writeStatementIsTheHandWrittenOne() {
        assertThat(normalized(BatchWriteRepository.WRITE_ALL.sql()))
                .isEqualTo(normalized(OLD_WRITE_ALL.replace("/*guard*/", "")));
    }

    @Test
    void guardedWriteIsTheHandWrittenOneBehindTheLock() {
        String old = CursorRepository.SQL_LOCK_OPEN.strip() + ";\n"
                + "WITH guard AS (SELECT 1 FROM stream_cursor WHERE tenant = ? AND catalog = ? AND epoch = ? "
                + "AND position = ? AND chain_digest = ? AND fenced_at IS NULL),\n"
                + OLD_WRITE_ALL.strip().substring("WITH ".length())
                        .replace("/*guard*/", "WHERE EXISTS (SELECT 1 FROM guard)");
        assertThat(normalized(BatchWriteRepository.LOCK_THEN_WRITE_PREPARED.sql())).isEqualTo(normalized(old));
    }

    @Test
    void prefetchIsTheHandWrittenOne() {
        assertThat(normalized(BatchWriteRepository.PREFETCH.sql())).isEqualTo(normalized(OLD_PREFETCH));
        assertThat(normalized(BatchWriteRepository.LOCK_THEN_PREFETCH.sql())).isEqualTo(normalized(
                "SET LOCAL plan_cache_mode = force_generic_plan;\n" + CursorRepository.SQL_LOCK_OPEN.strip()
                        + ";\n" + OLD_PREFETCH));
    }

    @Test
    void everyPlaceholderHasItsValue() {
        for (BoundSql<?> st : List.of(BatchWriteRepository.WRITE_ALL, BatchWriteRepository.LOCK_THEN_WRITE_PREPARED,
                BatchWriteRepository.PREFETCH, BatchWriteRepository.LOCK_THEN_PREFETCH)) {
            assertThat(st.parameterCount()).isEqualTo(st.sql().chars().filter(c -> c == '?').count());
        }
    }

    @Test
    void preparedParametersComeInTheHandWrittenOrder() {
        UUID e1 = UUID.fromString("0193a000-0000-7000-8000-000000000001");
        UUID e2 = UUID.fromString("0193a000-0000-7000-8000-000000000002");
        UUID tx = UUID.fromString("0193a000-0000-7000-8000-0000000000ff");
        Instant at = Instant.parse("2026-11-30T10:00:00Z");
        Rows rows = new Rows(S,
                List.of(new ItemRow("sku-1", 2, "{}", false, 1, 5)),
                List.of(new MappingRow("m-1", 1, "a", "b", 1, 6)),
                List.of(new PolicyRow("p-1", 3, "{}", 1, 7)),
                List.of(new ReleaseRow("r-1", 4, "PUBLIC", "[]", 1, 8)),
                List.of(new RevisionRow("item", "sku-1", 2, "{\"attributes\":{}}", false, 1, 5, e1),
                        new RevisionRow("mapping", "m-1", 1, "{\"source\":\"a\"}", false, 1, 6, e2)),
                List.of(new OutboxRow(1, 5, e1, tx, 0, 2, "ItemUpserted", "item", "sku-1", 2, "{\"w\":1}", "d5", at),
                        new OutboxRow(1, 6, e2, tx, 1, 2, "MappingUpserted", "mapping", "m-1", null, "{\"w\":2}",
                                "d6", at)));
        Cursor from = new Cursor(S, 1, 4, D);
        Cursor to = new Cursor(S, 1, 8, "d8");
        Object[] expected = {
            "acme", "shoes", // cursor lock
            "acme", "shoes", 1L, 4L, D, // guard
            "acme", "shoes", new String[] {"item", "mapping"}, new String[] {"sku-1", "m-1"}, new int[] {2, 1},
            "{\"attributes\":{}}\u001e{\"source\":\"a\"}", new boolean[] {false, false}, new long[] {1, 1},
            new long[] {5, 6}, new String[] {e1.toString(), e2.toString()}, // revisions
            "acme", "shoes", new String[] {"sku-1"}, new int[] {2}, new boolean[] {false}, new long[] {1},
            new long[] {5}, // items
            "acme", "shoes", new String[] {"m-1"}, new int[] {1}, new String[] {"a"}, new String[] {"b"},
            new long[] {1}, new long[] {6}, // mappings
            "acme", "shoes", new String[] {"p-1"}, new int[] {3}, new long[] {1}, new long[] {7}, // policies
            "acme", "shoes", new String[] {"r-1"}, new int[] {4}, new String[] {"PUBLIC"}, new long[] {1},
            new long[] {8}, // releases
            "acme", "shoes", new long[] {1, 1}, new long[] {5, 6}, new String[] {e1.toString(), e2.toString()},
            new String[] {tx.toString(), tx.toString()}, new int[] {0, 1}, new int[] {2, 2},
            new String[] {"ItemUpserted", "MappingUpserted"}, new String[] {"item", "mapping"},
            new String[] {"sku-1", "m-1"}, new Integer[] {2, null}, "{\"w\":1}\u001e{\"w\":2}",
            new String[] {"d5", "d6"}, new String[] {at.toString(), at.toString()}, // outbox
            8L, "d8", "acme", "shoes", 1L, 4L, // advance
            "acme/shoes/1" // notification
        };
        Object[] actual = BatchWriteRepository.preparedParams(rows, from, to);
        assertThat(Arrays.deepEquals(actual, expected))
                .as("expected %s%nbut was  %s", Arrays.deepToString(expected), Arrays.deepToString(actual))
                .isTrue();
    }

    @Test
    void prefetchParametersComeInTheHandWrittenOrder() {
        Object[] actual = BatchWriteRepository.PREFETCH.params(new BatchWriteRepository.Lookup(S,
                Map.of("item", Set.of("sku-1"), "release", Set.of("r-1")),
                List.of(new Change.ItemRef("sku-1", 2))));
        Object[] expected = {
            new String[] {"sku-1"}, "acme", "shoes", new String[0], "acme", "shoes", new String[0], "acme", "shoes",
            new String[] {"r-1"}, "acme", "shoes", new String[] {"sku-1"}, new int[] {2}, "acme", "shoes"
        };
        assertThat(Arrays.deepEquals(actual, expected))
                .as("expected %s%nbut was  %s", Arrays.deepToString(expected), Arrays.deepToString(actual))
                .isTrue();
    }

    private static String normalized(String sql) {
        return sql.strip().replaceAll("\\s+", " ");
    }
}
