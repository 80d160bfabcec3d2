package com.acme.catalog.resolver.evidence;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Extraction runs and their claims: written together, read by id, deleted with their expired artifact. */
@Repository
class ClaimRepository {

    private static final String SQL_INSERT_RUN = """
            INSERT INTO extraction_run (run_id, tenant, catalog, artifact_id, extractor, unmapped_fields, created_by)
            VALUES (?, ?, ?, ?, ?, ?::json, ?)
            """;
    /** Every claim of a run in one statement, one array per column. */
    private static final String SQL_INSERT_CLAIMS = """
            INSERT INTO claim (claim_id, run_id, tenant, catalog, artifact_id, ordinal, aggregate_type, aggregate_id,
                               field, value)
            SELECT u.claim_id, ?, ?, ?, ?, u.ordinal, u.aggregate_type, u.aggregate_id, u.field, u.value::json
              FROM unnest(?::uuid[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[])
                   AS u(claim_id, ordinal, aggregate_type, aggregate_id, field, value)
            """;
    private static final String SQL_ARTIFACTS_OF = """
            SELECT claim_id, artifact_id FROM claim
             WHERE tenant = ? AND catalog = ? AND claim_id = ANY (?::uuid[])
            """;

    private final JdbcClient jdbc;

    ClaimRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insertRun(UUID runId, StreamId stream, UUID artifactId, String extractor, String unmappedJson,
            String createdBy) {
        jdbc.sql(SQL_INSERT_RUN).params(runId, stream.tenant(), stream.catalog(), artifactId, extractor, unmappedJson,
                createdBy).update();
    }

    /** One new claim: its id and what it says ({@code valueJson} is JSON text). */
    record NewClaim(UUID claimId, String aggregateType, String aggregateId, String field, String valueJson) {
    }

    void insertClaims(UUID runId, StreamId stream, UUID artifactId, List<NewClaim> claims) {
        int n = claims.size();
        if (n == 0) {
            return;
        }
        String[] ids = new String[n];
        int[] ordinals = new int[n];
        String[] types = new String[n];
        String[] aggregateIds = new String[n];
        String[] fields = new String[n];
        String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            NewClaim c = claims.get(i);
            ids[i] = c.claimId().toString();
            ordinals[i] = i;
            types[i] = c.aggregateType();
            aggregateIds[i] = c.aggregateId();
            fields[i] = c.field();
            values[i] = c.valueJson();
        }
        jdbc.sql(SQL_INSERT_CLAIMS).params(runId, stream.tenant(), stream.catalog(), artifactId, ids, ordinals, types,
                aggregateIds, fields, values).update();
    }

    /** @return claim id to artifact id for those of the named claims that are the stream's */
    Map<UUID, UUID> artifactsOf(StreamId stream, List<UUID> claimIds) {
        String[] ids = claimIds.stream().map(UUID::toString).toArray(String[]::new);
        Map<UUID, UUID> out = new HashMap<>();
        jdbc.sql(SQL_ARTIFACTS_OF).params(stream.tenant(), stream.catalog(), ids)
                .query(rs -> {
                    out.put(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class));
                });
        return out;
    }
}
