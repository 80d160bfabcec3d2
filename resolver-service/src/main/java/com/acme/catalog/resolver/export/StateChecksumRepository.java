package com.acme.catalog.resolver.export;

import java.util.Map;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.ChecksumQuery;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Computes the {@value AcceptedStateChecksum#PROFILE} profile over the resolver's current accepted state. Rows
 * stream through a cursor (fetch size), so the table size does not bound memory. Runs inside the caller's
 * transaction: call it in the same snapshot that read the cursor.
 */
@Repository
public class StateChecksumRepository {

    private static final Map<Table, String> SQL = Map.of(
            Table.items, """
                    SELECT item_id, revision, deleted, attributes::text FROM item
                     WHERE tenant = ? AND catalog = ? ORDER BY item_id COLLATE "C"
                    """,
            Table.mappings, """
                    SELECT mapping_id, revision, source, target FROM mapping
                     WHERE tenant = ? AND catalog = ? ORDER BY mapping_id COLLATE "C"
                    """,
            Table.policies, """
                    SELECT policy_id, revision, rules::text FROM policy
                     WHERE tenant = ? AND catalog = ? ORDER BY policy_id COLLATE "C"
                    """,
            Table.releases, """
                    SELECT release_id, revision, visibility, items::text FROM release
                     WHERE tenant = ? AND catalog = ? ORDER BY release_id COLLATE "C"
                    """);

    private final JdbcTemplate streaming;

    public StateChecksumRepository(DataSource dataSource) {
        this.streaming = new JdbcTemplate(dataSource);
        this.streaming.setFetchSize(2000);
    }

    /** @return every table of the profile with its row count and SHA-256, in the profile's table order */
    public Map<Table, TableChecksum> compute(StreamId stream) {
        return ChecksumQuery.compute(streaming, SQL, stream.tenant(), stream.catalog());
    }
}
