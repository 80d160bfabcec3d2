package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** Bad rebuild requests are problems and start nothing. */
class RebuildInputIT extends ProductIT {

    @Test
    void badRequestsAreProblemsAndStartNothing() {
        assertProblem(post("op", "{\"tenant\":\"acme\"}"), 400, "INVALID_BODY");
        assertProblem(post("op", "[]"), 400, "INVALID_BODY");
        assertProblem(post("op", "{\"tenant\":\"acme\",\"catalog\":7}"), 400, "INVALID_BODY");
        assertProblem(post("op", "{\"tenant\":\"Acme\",\"catalog\":\"shoes\"}"), 400, "INVALID_ID");
        assertProblem(post("c", "{\"tenant\":\"acme\",\"catalog\":\"shoes\"}"), 403, "FORBIDDEN");
        assertProblem(post(null, "{\"tenant\":\"acme\",\"catalog\":\"shoes\"}"), 401, "UNAUTHENTICATED");
        assertThat(jdbc.sql("SELECT count(*) FROM rebuild").query(Long.class).single()).isZero();

        assertProblem(client("op").get().uri("/v1/rebuilds/01900000-0000-7000-8000-000000000001").retrieve()
                .toEntity(JsonNode.class), 404, "NOT_FOUND");
        assertProblem(client("op").get().uri("/v1/rebuilds/not-a-uuid").retrieve().toEntity(JsonNode.class), 400,
                "INVALID_ID");
    }

    private ResponseEntity<JsonNode> post(String token, String body) {
        return client(token).post().uri("/v1/rebuilds").contentType(MediaType.APPLICATION_JSON).body(body)
                .retrieve().toEntity(JsonNode.class);
    }

    private static void assertProblem(ResponseEntity<JsonNode> r, int status, String code) {
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(status);
        assertThat(r.getBody().get("code").stringValue()).isEqualTo(code);
    }
}
