package com.acme.catalog.resolver.web;

import static com.acme.catalog.testsupport.OpenApiDocuments.operation;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.resolver.support.ResolverIT;

import com.acme.catalog.testsupport.OpenApiDocuments;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The resolver serves an OpenAPI 3 description without a token, with every endpoint of the contract (docs/design.md
 * §11) and, for each, its problem responses (application/problem+json with the stable codes), and a Swagger UI.
 */
class OpenApiIT extends ResolverIT {

    /** the contract's resolver endpoints and those of both services: method and path (variables renamed freely). */
    static final List<String> CONTRACT = List.of(
            "PUT /v1/streams/{tenant}/{catalog}/items/{itemId}",
            "DELETE /v1/streams/{tenant}/{catalog}/items/{itemId}",
            "PUT /v1/streams/{tenant}/{catalog}/mappings/{mappingId}",
            "PUT /v1/streams/{tenant}/{catalog}/policies/{policyId}",
            "PUT /v1/streams/{tenant}/{catalog}/releases/{releaseId}",
            "POST /v1/streams/{tenant}/{catalog}/transactions",
            "POST /v1/streams/{tenant}/{catalog}/review-cases",
            "GET /v1/streams/{tenant}/{catalog}/review-cases",
            "GET /v1/streams/{tenant}/{catalog}/review-cases/{caseId}",
            "POST /v1/streams/{tenant}/{catalog}/review-cases/{caseId}/decisions",
            "POST /v1/streams/{tenant}/{catalog}/extraction-runs",
            "POST /v1/tenants/{tenant}/evidence",
            "GET /v1/tenants/{tenant}/evidence/{artifactId}",
            "GET /v1/tenants/{tenant}/evidence/{artifactId}/content",
            "GET /v1/tenants/{tenant}/evidence-retention",
            "POST /v1/evidence-retention/run",
            "GET /v1/streams/{tenant}/{catalog}/cursor",
            "GET /v1/streams/{tenant}/{catalog}/state-checksum",
            "POST /v1/retention/consumers",
            "PUT /v1/retention/consumers/{consumerId}/progress",
            "DELETE /v1/retention/consumers/{consumerId}",
            "POST /v1/retention/leases",
            "POST /v1/retention/leases/{leaseId}/renew",
            "DELETE /v1/retention/leases/{leaseId}",
            "GET /v1/retention/streams/{tenant}/{catalog}",
            "POST /v1/retention/prune",
            "POST /v1/exports",
            "GET /v1/exports/{exportId}",
            "GET /v1/exports/{exportId}/manifest",
            "GET /v1/exports/events",
            "GET /v1/epochs/{tenant}/{catalog}",
            "POST /v1/epochs/{tenant}/{catalog}/rotate",
            "POST /v1/epochs/rotations",
            "GET /v1/epochs/rotations/{rotationId}",
            "POST /v1/streams/{tenant}/{catalog}/reset",
            "POST /v1/admin/maintenance",
            "GET /v1/admin/maintenance",
            "POST /v1/streams/{tenant}/{catalog}/bootstrap-import");

    @Test
    void everyContractEndpointIsDescribedWithItsProblemResponses() {
        String text = client(null).get().uri("/v3/api-docs").retrieve().body(String.class);
        JsonNode doc = JsonMapper.builder().build().readTree(text);
        assertThat(doc.path("openapi").stringValue()).startsWith("3.");
        List<String> missing = new ArrayList<>();
        for (String endpoint : CONTRACT) {
            JsonNode op = operation(doc, endpoint);
            if (op == null) {
                missing.add(endpoint);
                continue;
            }
            assertThat(problemCodes(op, "400")).as(endpoint).contains("INVALID_ID", "INVALID_BODY");
            assertThat(problemCodes(op, "401")).as(endpoint).containsExactly("UNAUTHENTICATED");
            assertThat(problemCodes(op, "403")).as(endpoint).containsExactly("FORBIDDEN");
        }
        assertThat(missing).as("contract endpoints missing from /v3/api-docs").isEmpty();
        // endpoint-specific codes of the contract
        assertThat(problemCodes(operation(doc, "POST /v1/epochs/{tenant}/{catalog}/rotate"), "409"))
                .contains("MAINTENANCE_REQUIRED");
        assertThat(problemCodes(operation(doc, "POST /v1/epochs/rotations"), "409"))
                .contains("MAINTENANCE_REQUIRED", "ROTATION_RUNNING");
        assertThat(operation(doc, "POST /v1/epochs/rotations").path("parameters").toString())
                .contains("#/components/parameters/IdempotencyKey");
        assertThat(problemCodes(operation(doc, "POST /v1/streams/{tenant}/{catalog}/reset"), "409"))
                .contains("MAINTENANCE_REQUIRED", "STREAM_HAS_DECISIONS", "ROTATION_RUNNING");
        assertThat(problemCodes(operation(doc, "POST /v1/admin/maintenance"), "409")).contains("ROTATION_RUNNING");
        assertThat(doc.path("components").path("schemas").path("EpochIssue").path("properties").path("startsFrom")
                .toString()).as("startsFrom is nullable").contains("\"null\"");
        assertThat(problemCodes(operation(doc, "GET /v1/exports/events"), "410"))
                .contains("CURSOR_STALE", "LEASE_EXPIRED", "EPOCH_CHANGED");
        assertThat(problemCodes(operation(doc, "GET /v1/exports/{exportId}/manifest"), "409"))
                .contains("EXPORT_NOT_READY");
        assertThat(problemCodes(operation(doc, "POST /v1/retention/leases/{leaseId}/renew"), "410"))
                .contains("LEASE_EXPIRED");
        assertThat(problemCodes(operation(doc, "PUT /v1/streams/{tenant}/{catalog}/items/{itemId}"), "409"))
                .contains("REVISION_CONFLICT");
        assertThat(problemCodes(operation(doc, "POST /v1/streams/{tenant}/{catalog}/transactions"), "503"))
                .contains("MAINTENANCE", "STREAM_FENCED", "HISTORY_ROLLED_BACK", "DATABASE_UNAVAILABLE");
        assertThat(problemCodes(operation(doc, "POST /v1/streams/{tenant}/{catalog}/review-cases/{caseId}/decisions"),
                "409")).contains("CASE_DECIDED");
        assertThat(problemCodes(operation(doc, "GET /v1/exports/{exportId}"), "404")).contains("NOT_FOUND");
        // writes an import fence or a move refuses; the import's own outcomes
        for (String write : List.of("PUT /v1/streams/{tenant}/{catalog}/items/{itemId}",
                "DELETE /v1/streams/{tenant}/{catalog}/items/{itemId}", "POST /v1/streams/{tenant}/{catalog}/transactions",
                "POST /v1/streams/{tenant}/{catalog}/review-cases/{caseId}/decisions")) {
            assertThat(problemCodes(operation(doc, write), "409")).as(write).contains("IMPORT_IN_PROGRESS",
                    "STREAM_MOVING");
            assertThat(problemCodes(operation(doc, write), "410")).as(write).contains("STREAM_MOVED");
        }
        assertThat(problemCodes(operation(doc, "POST /v1/streams/{tenant}/{catalog}/bootstrap-import"), "504"))
                .contains("PRODUCT_NOT_READY");
        JsonNode stream = operation(doc, "GET /v1/streams/{tenant}/{catalog}");
        assertThat(stream).as("GET /v1/streams/{tenant}/{catalog}").isNotNull();
        assertThat(problemCodes(stream, "404")).contains("NOT_FOUND");
        JsonNode fence = doc.path("components").path("schemas").path("StreamStatus").path("properties")
                .path("importFence");
        assertThat(fence.toString()).as("importFence is nullable").contains("null");
        assertThat(doc.path("components").path("schemas").path("Problem").path("properties").path("code")
                .path("enum").toString()).contains("HISTORY_ROLLED_BACK");

        assertThat(client(null).get().uri("/swagger-ui/index.html").retrieve().toEntity(String.class).getStatusCode()
                .value()).isEqualTo(200);
    }

    /**
     * The document as served, written to {@code target/openapi/resolver-service.json} for the OpenAPI linter
     * ({@code bin/lint-openapi.sh}, run by {@code .ci/run} after {@code mvn -B verify}); and what any reader needs
     * of it, so the build fails on a gap even without the linter: every operation has a summary, a JSON request
     * body an example, a successful JSON answer an example, and the info a license and contact.
     */
    @Test
    void theDocumentIsWrittenForTheLinterAndEveryOperationHasASummaryAndExamples() throws Exception {
        JsonNode doc = OpenApiDocuments.writeForTheLinter(
                client(null).get().uri("/v3/api-docs").retrieve().body(String.class), "resolver-service");
        OpenApiDocuments.assertReadable(doc);
        // a JsonNode body is any JSON value, not the getters of Jackson's class
        assertThat(doc.path("components").path("schemas").path("JsonNode").has("properties")).isFalse();
        // the contract's writes take an Idempotency-Key
        for (String write : List.of("PUT /v1/streams/{tenant}/{catalog}/items/{itemId}",
                "DELETE /v1/streams/{tenant}/{catalog}/items/{itemId}",
                "POST /v1/streams/{tenant}/{catalog}/transactions",
                "POST /v1/streams/{tenant}/{catalog}/review-cases/{caseId}/decisions")) {
            assertThat(operation(doc, write).path("parameters").toString()).as(write)
                    .contains("#/components/parameters/IdempotencyKey");
        }
        assertThat(doc.path("components").path("parameters").path("IdempotencyKey").path("name").stringValue())
                .isEqualTo("Idempotency-Key");
    }

    static List<String> problemCodes(JsonNode op, String status) {
        JsonNode r = op.path("responses").path(status);
        assertThat(r.path("content").has("application/problem+json")).as("%s problem+json in %s", status, op)
                .isTrue();
        List<String> codes = new ArrayList<>();
        r.path("x-problem-codes").forEach(c -> codes.add(c.stringValue()));
        return codes;
    }
}
