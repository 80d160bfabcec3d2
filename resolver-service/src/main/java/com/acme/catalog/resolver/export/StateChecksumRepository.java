package com.acme.catalog.resolver.export;

import java.util.Map;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.ChecksumProfile;
import com.acme.catalog.platform.checksum.ChecksumQuery;
import com.acme.catalog.contracts.checksum.PublicViewChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Computes a checksum profile over the resolver's accepted state: {@code accepted-state-v1} over the current rows,
 * {@code public-view-v1} from the current rows, the releases' current revisions and the revision history (the
 * resolver's own statement of the public-view rule, written independently of the product's projection). Rows
 * stream through a cursor (fetch size), so the table size does not bound memory. Runs inside the caller's
 * transaction: call it in the same snapshot that read the cursor.
 */
@Repository
public class StateChecksumRepository {

    private static final Map<String, String> ACCEPTED_STATE = Map.of(
            "items", """
                    SELECT item_id, revision, deleted, attributes::text FROM item
                     WHERE tenant = ? AND catalog = ? ORDER BY item_id COLLATE "C"
                    """,
            "mappings", """
                    SELECT mapping_id, revision, source, target FROM mapping
                     WHERE tenant = ? AND catalog = ? ORDER BY mapping_id COLLATE "C"
                    """,
            "policies", """
                    SELECT policy_id, revision, rules::text FROM policy
                     WHERE tenant = ? AND catalog = ? ORDER BY policy_id COLLATE "C"
                    """,
            "releases", """
                    SELECT release_id, revision, visibility, items::text FROM release
                     WHERE tenant = ? AND catalog = ? ORDER BY release_id COLLATE "C"
                    """);
    /**
     * The public-view rule ({@link PublicViewChecksum}): per item, the PUBLIC releases (current revisions) naming it,
     * each at the highest revision it lists; the one made last wins; the item must not be deleted now; its
     * attributes are those of the named revision.
     */
    private static final Map<String, String> PUBLIC_VIEW = Map.of(PublicViewChecksum.TABLE, """
            WITH named AS (
                SELECT r.release_id, r.epoch, r.position, ref ->> 'itemId' AS item_id,
                       max((ref ->> 'revision')::integer) AS revision
                  FROM release r CROSS JOIN LATERAL jsonb_array_elements(r.items) AS ref
                 WHERE r.tenant = ? AND r.catalog = ? AND r.visibility = 'PUBLIC'
                 GROUP BY r.release_id, r.epoch, r.position, ref ->> 'itemId'
            ), latest AS (
                SELECT DISTINCT ON (item_id) item_id, revision, release_id
                  FROM named ORDER BY item_id, epoch DESC, position DESC
            )
            SELECT l.item_id, l.revision, l.release_id, (a.content -> 'attributes')::text
              FROM latest l
              JOIN item i ON i.tenant = ? AND i.catalog = ? AND i.item_id = l.item_id AND NOT i.deleted
              JOIN accepted_revision a ON a.tenant = i.tenant AND a.catalog = i.catalog
                                      AND a.aggregate_type = 'item' AND a.aggregate_id = l.item_id
                                      AND a.revision = l.revision AND NOT a.deleted
             ORDER BY l.item_id COLLATE "C"
            """);

    private final JdbcTemplate streaming;

    public StateChecksumRepository(DataSource dataSource) {
        this.streaming = new JdbcTemplate(dataSource);
        this.streaming.setFetchSize(2000);
    }

    /** @return every table of the profile with its row count and SHA-256, in the profile's table order */
    public Map<String, TableChecksum> compute(StreamId stream, ChecksumProfile profile) {
        return switch (profile) {
            case ACCEPTED_STATE -> ChecksumQuery.compute(streaming, profile, ACCEPTED_STATE, stream.tenant(),
                    stream.catalog());
            case PUBLIC_VIEW -> ChecksumQuery.compute(streaming, profile, PUBLIC_VIEW, stream.tenant(),
                    stream.catalog(), stream.tenant(), stream.catalog());
        };
    }
}
