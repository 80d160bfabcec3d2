package com.acme.catalog.product.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.ExportStatus;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.retention.RetentionView;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client reads the resolver's answers into the contract records: members it does not know are skipped, an
 * answer its record refuses (a member missing, a value out of range, an unknown status) fails the call by name.
 */
class ResolverClientTest {

    private static final StreamId S = new StreamId("acme", "shoes");
    private static final String AT = "2026-12-02T04:50:07.123456Z";
    private static final String EXPORT_ID = "01900000-0000-7000-8000-000000000001";
    private static final String LEASE_ID = "01900000-0000-7000-8000-000000000002";

    private final Map<String, String> answers = new ConcurrentHashMap<>();
    /** The status of an answer, 200 unless set. */
    private final Map<String, Integer> statuses = new ConcurrentHashMap<>();
    private HttpServer server;
    private ResolverClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                String call = ex.getRequestMethod() + " " + ex.getRequestURI().getPath();
                String body = answers.get(call);
                if (body == null) {
                    ex.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(statuses.getOrDefault(call, 200), bytes.length);
                ex.getResponseBody().write(bytes);
            }
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        client = new ResolverClient(new ResolverClientProperties(url, "", "product-test", url + "/v1/inbox/events",
                null, null), JsonMapper.builder().build());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aRetentionStatusIsReadWholeAndMembersAddedLaterAreSkipped() {
        answers.put("GET /v1/retention/streams/acme/shoes", "{\"epoch\":2,\"cursor\":9,\"prunedThrough\":2,"
                + "\"retainedEvents\":7,\"blockedBy\":[{\"kind\":\"gap\",\"id\":null,\"position\":3}],"
                + "\"consumers\":[],\"leases\":[],\"tenant\":\"acme\",\"catalog\":\"shoes\",\"minAge\":\"PT1H\","
                + "\"ripeThrough\":3,\"pruneableThrough\":3,\"observedAt\":\"" + AT + "\",\"addedLater\":{\"x\":1}}");
        RetentionView status = client.status(S);
        assertThat(status.epoch()).isEqualTo(2);
        assertThat(status.cursor()).isEqualTo(9);
        assertThat(client.epoch(S)).isEqualTo(2);
    }

    @Test
    void anExportAndALeaseAreReadAsTheirRecords() {
        answers.put("GET /v1/exports/" + EXPORT_ID, "{\"exportId\":\"" + EXPORT_ID + "\",\"status\":\"READY\","
                + "\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":1,\"leaseId\":\"" + LEASE_ID + "\","
                + "\"cursor\":5,\"manifestKey\":\"exports/m.json\",\"createdAt\":\"" + AT + "\"}");
        ExportView export = client.exportStatus(EXPORT_ID);
        assertThat(export.status()).isEqualTo(ExportStatus.READY);
        assertThat(export.manifestKey()).isEqualTo("exports/m.json");
        assertThat(export.error()).isNull();

        answers.put("POST /v1/retention/leases", "{\"leaseId\":\"" + LEASE_ID + "\",\"pin\":5,\"expiresAt\":\"" + AT
                + "\",\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":1,\"owner\":\"o\"}");
        assertThat(client.createLease(S, 1, 60, "o")).isEqualTo(LEASE_ID);
    }

    @Test
    void anAnswerItsRecordRefusesFailsTheCallByName() {
        answers.put("GET /v1/epochs/acme/shoes", "{\"epoch\":0,\"highWaterMark\":0,\"history\":[]}");
        assertThatThrownBy(() -> client.currentEpoch(S)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("current epoch answered what this product cannot read as EpochStatus");
        answers.put("GET /v1/exports/" + EXPORT_ID, "{\"exportId\":\"" + EXPORT_ID + "\",\"status\":\"PAUSED\"}");
        assertThatThrownBy(() -> client.exportStatus(EXPORT_ID)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("export status").hasMessageContaining("PAUSED");
        answers.put("POST /v1/retention/leases", "{\"pin\":5}");
        assertThatThrownBy(() -> client.createLease(S, 1, 60, "o")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("lease answered");
    }

    @Test
    void anErrorAnswerCarriesItsProblemCodeAsTheContractsType() {
        answers.put("POST /v1/retention/leases", "{\"type\":\"about:blank\",\"code\":\"EPOCH_MISMATCH\"}");
        statuses.put("POST /v1/retention/leases", 409);
        assertThatThrownBy(() -> client.createLease(S, 1, 60, "o"))
                .isInstanceOfSatisfying(ResolverClient.RefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).contains(ProblemCode.EPOCH_MISMATCH);
                });
        // a code this contract does not know (a newer resolver's), or a body that is not JSON: no code
        answers.put("POST /v1/retention/leases", "{\"code\":\"SOMETHING_NEWER\"}");
        assertThatThrownBy(() -> client.createLease(S, 1, 60, "o"))
                .isInstanceOfSatisfying(ResolverClient.RefusedException.class, e -> assertThat(e.code()).isEmpty());
        answers.put("POST /v1/retention/leases", "not json");
        assertThatThrownBy(() -> client.createLease(S, 1, 60, "o"))
                .isInstanceOfSatisfying(ResolverClient.RefusedException.class, e -> assertThat(e.code()).isEmpty());

        answers.put("GET /v1/exports/" + EXPORT_ID, "{\"code\":\"LEASE_EXPIRED\"}");
        statuses.put("GET /v1/exports/" + EXPORT_ID, 410);
        assertThatThrownBy(() -> client.exportStatus(EXPORT_ID))
                .isInstanceOfSatisfying(ResolverClient.GoneException.class,
                        e -> assertThat(e.code()).contains(ProblemCode.LEASE_EXPIRED));
    }

    @Test
    void aChainDigestBeyondTheHeadIsAheadOfSourceOnlyWhenTheCodeSaysSo() {
        String path = "GET /v1/streams/acme/shoes/chain-digest";
        answers.put(path, "{\"code\":\"POSITION_AHEAD\"}");
        statuses.put(path, 422);
        assertThatThrownBy(() -> client.chainDigest(S, 1, 9)).isInstanceOf(ResolverClient.AheadOfSourceException.class);
        answers.put(path, "{\"code\":\"INVALID_EVENT\"}");
        assertThatThrownBy(() -> client.chainDigest(S, 1, 9))
                .isInstanceOfSatisfying(ResolverClient.RefusedException.class,
                        e -> assertThat(e.code()).contains(ProblemCode.INVALID_EVENT));
    }

    @Test
    void aPositionReportedAheadAnswersTheRefusalWithItsTypedCode() {
        String path = "PUT /v1/retention/consumers/product-test/progress";
        answers.put(path, "{\"code\":\"HISTORY_ROLLED_BACK\"}");
        statuses.put(path, 503);
        ResolverClient.Refusal refusal = client.reportAhead(S, 1, 9).orElseThrow();
        assertThat(refusal.is(ProblemCode.HISTORY_ROLLED_BACK)).isTrue();
        assertThat(refusal).hasToString("HISTORY_ROLLED_BACK");

        answers.put(path, "{}");
        statuses.put(path, 409);
        refusal = client.reportAhead(S, 1, 9).orElseThrow();
        assertThat(refusal.code()).isNull();
        assertThat(refusal).hasToString("HTTP 409");

        statuses.remove(path);
        assertThat(client.reportAhead(S, 1, 9)).isEmpty();
    }
}
