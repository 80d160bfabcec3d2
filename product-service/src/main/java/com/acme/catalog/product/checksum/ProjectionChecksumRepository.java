package com.acme.catalog.product.checksum;

import java.util.Map;

import javax.sql.DataSource;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.ChecksumQuery;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Computes the {@value AcceptedStateChecksum#PROFILE} profile over one generation's copy of accepted state, with
 * the same columns, ordering and renderings as the resolver's state-checksum, so the two compare exactly. Rows
 * stream through a cursor (fetch size). Runs inside the caller's transaction (one snapshot with the cursor read).
 */
@Repository
public class ProjectionChecksumRepository {

    private static final Map<Table, String> SQL = Map.of(
            Table.items, """
                    SELECT item_id, revision, deleted, attributes::text FROM item
                     WHERE generation_id = ? ORDER BY item_id COLLATE "C"
                    """,
            Table.mappings, """
                    SELECT mapping_id, revision, source, target FROM mapping
                     WHERE generation_id = ? ORDER BY mapping_id COLLATE "C"
                    """,
            Table.policies, """
                    SELECT policy_id, revision, rules::text FROM policy
                     WHERE generation_id = ? ORDER BY policy_id COLLATE "C"
                    """,
            Table.releases, """
                    SELECT release_id, revision, visibility, items::text FROM release
                     WHERE generation_id = ? ORDER BY release_id COLLATE "C"
                    """);

    private final JdbcTemplate streaming;

    public ProjectionChecksumRepository(DataSource dataSource) {
        this.streaming = new JdbcTemplate(dataSource);
        this.streaming.setFetchSize(2000);
    }

    /** @return every table of the profile with its row count and SHA-256, in the profile's table order */
    public Map<Table, TableChecksum> compute(long generationId) {
        return ChecksumQuery.compute(streaming, SQL, generationId);
    }
}
