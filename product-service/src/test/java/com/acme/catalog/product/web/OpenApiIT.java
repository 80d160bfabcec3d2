package com.acme.catalog.product.web;

import static com.acme.catalog.testsupport.OpenApiDocuments.operation;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.product.support.ProductIT;

import com.acme.catalog.testsupport.OpenApiDocuments;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The product serves an OpenAPI 3 description without a token, with every endpoint of the contract (docs/design.md §11)
 * and, for each, its problem responses (application/problem+json with the stable codes), and a Swagger UI.
 */
class OpenApiIT extends ProductIT {

    /** the contract's product endpoints and those of both services: method and path (variables renamed freely). */
    static final List<String> CONTRACT = List.of(
            "POST /v1/inbox/events",
            "GET /v1/catalog/{tenant}/{catalog}/items/{itemId}",
            "GET /v1/catalog/{tenant}/{catalog}/search",
            "POST /v1/rebuilds",
            "GET /v1/rebuilds/{rebuildId}",
            "GET /v1/projection-completeness",
            "GET /v1/streams/{tenant}/{catalog}/projection-checksum",
            "POST /v1/admin/maintenance",
            "GET /v1/admin/maintenance",
            "GET /v1/audit/old-epoch-deliveries");

    /** Public catalog reads need no token: no 401/403 and no security requirement. */
    static boolean isPublic(String endpoint) {
        return endpoint.contains(" /v1/catalog/");
    }

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
            if (isPublic(endpoint)) {
                assertThat(op.path("responses").has("401")).as(endpoint).isFalse();
                assertThat(op.path("security").isEmpty()).as(endpoint).isTrue();
            } else {
                assertThat(problemCodes(op, "401")).as(endpoint).containsExactly("UNAUTHENTICATED");
                assertThat(problemCodes(op, "403")).as(endpoint).containsExactly("FORBIDDEN");
            }
        }
        assertThat(missing).as("contract endpoints missing from /v3/api-docs").isEmpty();
        assertThat(problemCodes(operation(doc, "POST /v1/inbox/events"), "422"))
                .contains("CHAIN_BROKEN", "INVALID_EVENT");
        assertThat(problemCodes(operation(doc, "POST /v1/inbox/events"), "409")).contains("EPOCH_MISMATCH");
        assertThat(problemCodes(operation(doc, "GET /v1/catalog/{tenant}/{catalog}/items/{itemId}"), "404"))
                .contains("NOT_FOUND");
        assertThat(problemCodes(operation(doc, "GET /v1/catalog/{tenant}/{catalog}/items/{itemId}"), "503"))
                .contains("MAINTENANCE");

        assertThat(client(null).get().uri("/swagger-ui/index.html").retrieve().toEntity(String.class).getStatusCode()
                .value()).isEqualTo(200);
    }

    /**
     * The document as served, written to {@code target/openapi/product-service.json} for the OpenAPI linter
     * ({@code bin/lint-openapi.sh}, run by {@code .ci/run} after {@code mvn -B verify}); and what any reader needs
     * of it, so the build fails on a gap even without the linter: every operation has a summary, a JSON request
     * body an example, a successful JSON answer an example, and the info a license and contact.
     */
    @Test
    void theDocumentIsWrittenForTheLinterAndEveryOperationHasASummaryAndExamples() throws Exception {
        JsonNode doc = OpenApiDocuments.writeForTheLinter(
                client(null).get().uri("/v3/api-docs").retrieve().body(String.class), "product-service");
        OpenApiDocuments.assertReadable(doc);
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
