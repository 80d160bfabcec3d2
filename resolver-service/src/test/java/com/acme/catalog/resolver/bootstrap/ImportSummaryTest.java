package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The import summary record writes the JSON the report's maps wrote before it, member for member, in order. */
class ImportSummaryTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SHA = "a".repeat(64);
    private static final String DIGEST = "b".repeat(64);
    private static final StreamId STREAM = new StreamId("acme", "shoes");

    @Test
    void aCompletedImportWithoutAPreparingThreadLeavesOutItsTimingsAndHasNoFailure() {
        ImportReport r = new ImportReport(STREAM, ImportOptions.defaults());
        r.validated(new EventsValidator.Validated(3, 120, SHA, null), 2_000_000);
        r.parsed(1_500_000);
        r.chunkCommitted(2, 1, 2, 3_000_000, 1_000_000);
        r.chunkCommitted(1, 1, 3, 1_000_000, 500_000);
        r.analyzed(250_000);
        r.completed(DIGEST, 2_000_000_000L);
        assertThat(JSON.writeValueAsString(r.summary())).isEqualTo("{\"status\":\"COMPLETED\",\"tenant\":\"acme\","
                + "\"catalog\":\"shoes\",\"epoch\":1,\"events\":3,\"logicalTransactions\":3,\"firstPosition\":1,"
                + "\"lastPosition\":3,\"chainDigest\":\"" + DIGEST + "\",\"inputBytes\":120,\"inputSha256\":\"" + SHA
                + "\",\"chunks\":{\"count\":2,\"minEvents\":1,\"meanEvents\":1.5,\"p50Events\":1,\"p95Events\":2,"
                + "\"maxEvents\":2,\"sizeHistogram\":{\"1\":1,\"2-3\":1}},\"commits\":2,\"eventsPerSecond\":1.5,"
                + "\"commitsPerSecond\":1.0,\"timings\":{\"validateMs\":2.0,\"parseMs\":1.5,\"writeMs\":4.0,"
                + "\"commitMs\":1.5,\"analyzeMs\":0.3,\"analyzeRuns\":1,\"diagnoseMs\":0.0,\"totalMs\":2000.0,"
                + "\"importerCpuMs\":0.0,\"lockWaitMs\":0.0},\"options\":{\"chunkEvents\":100,"
                + "\"chunkBytes\":16777216,\"maxEventBytes\":1048576,\"synchronousCommitOff\":false,"
                + "\"diagnoseFailedChunk\":false,\"batchedStatements\":true,\"reset\":null,\"epochAbove\":null},\"resetEpoch\":null,"
                + "\"skippedEvents\":0,"
                + "\"duplicateEvents\":0,\"diagnosticFallbacks\":0,\"outboxLagAtEnd\":null,\"readyMs\":null,"
                + "\"verification\":null}");
    }

    @Test
    void aFailedPipelinedImportNamesItsFailureAndKeepsUnknownValuesAsNulls() {
        ImportReport r = new ImportReport(STREAM, ImportOptions.defaults().withChunkEvents(1));
        r.validated(new EventsValidator.Validated(4, 99, SHA, null), 1_000_000);
        r.prepared(1_000_000, 2_000_000, 3_000_000);
        r.preparerCpu(4_000_000);
        r.failed(1, List.of(), new ApiException(ProblemCode.DESTINATION_NOT_EMPTY, "busy"),
                new ChunkCommitter.Diagnosis(0, "e-0", null, "DESTINATION_NOT_EMPTY", "busy"), 500_000, 0);
        String json = JSON.writeValueAsString(r.summary());
        assertThat(json).isEqualTo("{\"status\":\"FAILED\",\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":null,"
                + "\"events\":4,\"logicalTransactions\":0,\"firstPosition\":null,\"lastPosition\":null,"
                + "\"chainDigest\":null,\"inputBytes\":99,\"inputSha256\":\"" + SHA + "\",\"chunks\":{\"count\":0,"
                + "\"minEvents\":null,\"meanEvents\":null,\"p50Events\":null,\"p95Events\":null,\"maxEvents\":null,"
                + "\"sizeHistogram\":{}},\"commits\":0,\"eventsPerSecond\":null,\"commitsPerSecond\":null,"
                + "\"timings\":{\"validateMs\":1.0,\"parseMs\":1.0,\"prepareMs\":2.0,\"waitMs\":3.0,\"writeMs\":0.0,"
                + "\"commitMs\":0.0,\"analyzeMs\":0.0,\"analyzeRuns\":0,\"diagnoseMs\":0.5,\"totalMs\":0.0,"
                + "\"importerCpuMs\":0.0,\"preparerCpuMs\":4.0,\"lockWaitMs\":0.0},\"options\":{"
                + "\"chunkEvents\":1,\"chunkBytes\":16777216,\"maxEventBytes\":1048576,"
                + "\"synchronousCommitOff\":false,\"diagnoseFailedChunk\":false,\"batchedStatements\":false,"
                + "\"reset\":null,\"epochAbove\":null},\"resetEpoch\":null,\"skippedEvents\":0,\"duplicateEvents\":0,\"diagnosticFallbacks\":0,\"outboxLagAtEnd\":null,"
                + "\"readyMs\":null,\"verification\":null,\"failure\":{\"chunk\":1,"
                + "\"firstIndex\":null,\"lastIndex\":null,\"eventIds\":[],\"code\":\"DESTINATION_NOT_EMPTY\","
                + "\"sqlState\":null,\"message\":\"busy\",\"firstFailingEvent\":{\"index\":0,\"eventId\":\"e-0\","
                + "\"sqlState\":null,\"code\":\"DESTINATION_NOT_EMPTY\",\"message\":\"busy\"},\"committedChunks\":0,"
                + "\"committedEvents\":0,\"action\":\"nothing was committed; fix the cause and run the import again\"}}");
        assertThat(r.toJson()).containsEntry("commits", 0).containsKey("failure");
    }
}
