package com.acme.catalog.resolver.stream;

import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.AggregateType;
import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Current accepted rows and their permanent revision history. Callers hold the stream's cursor lock. */
@Repository
public class AcceptedStateRepository {

    private static final String SQL_CURRENT_ITEM = """
            SELECT revision, deleted FROM item WHERE tenant = ? AND catalog = ? AND item_id = ?
            """;
    private static final String SQL_CURRENT_MAPPING = """
            SELECT revision, false FROM mapping WHERE tenant = ? AND catalog = ? AND mapping_id = ?
            """;
    private static final String SQL_CURRENT_POLICY = """
            SELECT revision, false FROM policy WHERE tenant = ? AND catalog = ? AND policy_id = ?
            """;
    private static final String SQL_CURRENT_RELEASE = """
            SELECT revision, false FROM release WHERE tenant = ? AND catalog = ? AND release_id = ?
            """;
    private static final String SQL_UPSERT_ITEM = """
            INSERT INTO item (tenant, catalog, item_id, revision, attributes, deleted, epoch, position)
            VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?)
            ON CONFLICT (tenant, catalog, item_id) DO UPDATE
               SET revision = excluded.revision, attributes = excluded.attributes, deleted = excluded.deleted,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_MAPPING = """
            INSERT INTO mapping (tenant, catalog, mapping_id, revision, source, target, epoch, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant, catalog, mapping_id) DO UPDATE
               SET revision = excluded.revision, source = excluded.source, target = excluded.target,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_POLICY = """
            INSERT INTO policy (tenant, catalog, policy_id, revision, rules, epoch, position)
            VALUES (?, ?, ?, ?, ?::jsonb, ?, ?)
            ON CONFLICT (tenant, catalog, policy_id) DO UPDATE
               SET revision = excluded.revision, rules = excluded.rules,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_UPSERT_RELEASE = """
            INSERT INTO release (tenant, catalog, release_id, revision, visibility, items, epoch, position)
            VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)
            ON CONFLICT (tenant, catalog, release_id) DO UPDATE
               SET revision = excluded.revision, visibility = excluded.visibility, items = excluded.items,
                   epoch = excluded.epoch, position = excluded.position, updated_at = now()
            """;
    private static final String SQL_INSERT_REVISION = """
            INSERT INTO accepted_revision (tenant, catalog, aggregate_type, aggregate_id, revision, content, deleted,
                                           epoch, position, event_id)
            VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)
            """;
    private static final String SQL_LIVE_ITEM_REVISION = """
            SELECT count(*) FROM accepted_revision
             WHERE tenant = ? AND catalog = ? AND aggregate_type = 'item' AND aggregate_id = ? AND revision = ?
               AND NOT deleted
            """;

    private final JdbcClient jdbc;

    public AcceptedStateRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The aggregate's current revision; empty when it never existed. */
    public Optional<CurrentRevision> current(StreamId s, String aggregateType, String id) {
        AggregateType type = AggregateType.parse(aggregateType);
        String sql = type == null ? null : switch (type) {
            case ITEM -> SQL_CURRENT_ITEM;
            case MAPPING -> SQL_CURRENT_MAPPING;
            case POLICY -> SQL_CURRENT_POLICY;
            case RELEASE -> SQL_CURRENT_RELEASE;
            case DECISION -> null;
        };
        if (sql == null) {
            throw new IllegalArgumentException("unknown aggregate type " + aggregateType);
        }
        return jdbc.sql(sql).params(s.tenant(), s.catalog(), id)
                .query((rs, n) -> new CurrentRevision(rs.getInt(1), rs.getBoolean(2))).optional();
    }

    public void upsertItem(StreamId s, String id, int revision, String attributesJson, boolean deleted, long epoch,
            long position) {
        jdbc.sql(SQL_UPSERT_ITEM)
                .params(s.tenant(), s.catalog(), id, revision, attributesJson, deleted, epoch, position).update();
    }

    public void upsertMapping(StreamId s, String id, int revision, String source, String target, long epoch,
            long position) {
        jdbc.sql(SQL_UPSERT_MAPPING).params(s.tenant(), s.catalog(), id, revision, source, target, epoch, position)
                .update();
    }

    public void upsertPolicy(StreamId s, String id, int revision, String rulesJson, long epoch, long position) {
        jdbc.sql(SQL_UPSERT_POLICY).params(s.tenant(), s.catalog(), id, revision, rulesJson, epoch, position)
                .update();
    }

    public void upsertRelease(StreamId s, String id, int revision, String visibility, String itemsJson, long epoch,
            long position) {
        jdbc.sql(SQL_UPSERT_RELEASE)
                .params(s.tenant(), s.catalog(), id, revision, visibility, itemsJson, epoch, position).update();
    }

    public void insertRevision(StreamId s, String aggregateType, String id, int revision, String contentJson,
            boolean deleted, long epoch, long position, UUID eventId) {
        jdbc.sql(SQL_INSERT_REVISION).params(s.tenant(), s.catalog(), aggregateType, id, revision, contentJson,
                deleted, epoch, position, eventId).update();
    }

    /** True when the item has this revision and it is not a deletion. */
    public boolean itemRevisionLive(StreamId s, String itemId, int revision) {
        return jdbc.sql(SQL_LIVE_ITEM_REVISION).params(s.tenant(), s.catalog(), itemId, revision)
                .query(Long.class).single() == 1L;
    }

    /** An aggregate's latest revision number and whether that revision deleted it. */
    public record CurrentRevision(int revision, boolean deleted) {
    }
}
