package com.acme.catalog.product.checksum;

import java.util.Map;

import javax.sql.DataSource;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.TableChecksum;
import com.acme.catalog.contracts.checksum.ChecksumProfile;
import com.acme.catalog.platform.checksum.ChecksumQuery;
import com.acme.catalog.contracts.checksum.PublicViewChecksum;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Computes a checksum profile over one generation, with the same columns, ordering and renderings as the
 * resolver's state-checksum, so the two compare exactly: {@code accepted-state-v1} over its copy of accepted state,
 * {@code public-view-v1} over the rows its public endpoints serve ({@code public_item}). Rows stream through a
 * cursor (fetch size). Runs inside the caller's transaction (one snapshot with the cursor read).
 */
@Repository
public class ProjectionChecksumRepository {

    private static final Map<String, String> ACCEPTED_STATE = Map.of(
            "items", """
                    SELECT item_id, revision, deleted, attributes::text FROM item
                     WHERE generation_id = ? ORDER BY item_id COLLATE "C"
                    """,
            "mappings", """
                    SELECT mapping_id, revision, source, target FROM mapping
                     WHERE generation_id = ? ORDER BY mapping_id COLLATE "C"
                    """,
            "policies", """
                    SELECT policy_id, revision, rules::text FROM policy
                     WHERE generation_id = ? ORDER BY policy_id COLLATE "C"
                    """,
            "releases", """
                    SELECT release_id, revision, visibility, items::text FROM release
                     WHERE generation_id = ? ORDER BY release_id COLLATE "C"
                    """);
    /** Exactly what {@code GET …/catalog/…/items/{id}} reads, for every public item. */
    private static final Map<String, String> PUBLIC_VIEW = Map.of(PublicViewChecksum.TABLE, """
            SELECT item_id, revision, release_id, attributes::text FROM public_item
             WHERE generation_id = ? ORDER BY item_id COLLATE "C"
            """);

    private final JdbcTemplate streaming;

    public ProjectionChecksumRepository(DataSource dataSource) {
        this.streaming = new JdbcTemplate(dataSource);
        this.streaming.setFetchSize(2000);
    }

    /** @return every table of the profile with its row count and SHA-256, in the profile's table order */
    public Map<String, TableChecksum> compute(long generationId, ChecksumProfile profile) {
        return ChecksumQuery.compute(streaming, profile,
                profile == ChecksumProfile.PUBLIC_VIEW ? PUBLIC_VIEW : ACCEPTED_STATE, generationId);
    }
}
