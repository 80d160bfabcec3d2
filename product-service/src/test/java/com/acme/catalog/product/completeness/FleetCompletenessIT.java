package com.acme.catalog.product.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.support.ProductIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /v1/projection-completeness} without a stream over 10,000 streams made with plain SQL: the counts by
 * state and epoch, every stream not CURRENT listed once over the pages with its own completeness's state and reason,
 * {@code product_streams{state}} counting the same, and bad paging input answered 400 problem+json.
 */
class FleetCompletenessIT extends ProductIT {

    private static final int STREAMS = 10_000;
    /** Streams with nothing but a failed rebuild (never served). */
    private static final int NEVER_SERVED = 5;

    @Autowired
    StreamEpochs epochs;
    @Autowired
    CompletenessService service;

    @Test
    void countsAndPagesTenThousandStreams() {
        // c<i>: i % 10 == 0 the product learnt epoch 2 but serves epoch 1 (BLOCKED EPOCH_CHANGED), 1 behind what it
        // saw (CATCHING_UP), 2 its recovery worker keeps failing (RETRYING), 3 serves epoch 2, the rest epoch 1
        jdbc.sql("""
                INSERT INTO generation (tenant, catalog, epoch, status, chain_position, applied_position,
                                        highest_seen_position)
                SELECT 'fleet', 'c' || lpad(i::text, 5, '0'), CASE WHEN i % 10 = 3 THEN 2 ELSE 1 END, 'SERVING', 5,
                       CASE WHEN i % 10 = 1 THEN 3 ELSE 5 END, 5
                  FROM generate_series(0, ? - 1) i
                """).params(STREAMS).update();
        jdbc.sql("""
                INSERT INTO serving_generation (tenant, catalog, generation_id)
                SELECT tenant, catalog, generation_id FROM generation WHERE tenant = 'fleet'
                """).update();
        jdbc.sql("""
                INSERT INTO stream_epoch (tenant, catalog, epoch)
                SELECT 'fleet', 'c' || lpad(i::text, 5, '0'), CASE WHEN i % 10 IN (0, 3) THEN 2 ELSE 1 END
                  FROM generate_series(0, ? - 1) i
                """).params(STREAMS).update();
        jdbc.sql("""
                INSERT INTO recovery_status (tenant, catalog, state, reason, failures, updated_at)
                SELECT 'fleet', 'c' || lpad(i::text, 5, '0'), 'RETRYING',
                       'RECOVERY_FAILED: RESOLVER_UNAVAILABLE: the resolver did not answer', 3, now()
                  FROM generate_series(0, ? - 1) i WHERE i % 10 = 2
                """).params(STREAMS).update();
        jdbc.sql("""
                INSERT INTO rebuild (rebuild_id, tenant, catalog, phase, error)
                SELECT gen_random_uuid(), 'fleet', 'gone-' || i, 'FAILED', 'export FAILED'
                  FROM generate_series(1, ?) i
                """).params(NEVER_SERVED).update();
        epochs.reload();

        long started = System.nanoTime();
        JsonNode first = fleet("");
        long cold = (System.nanoTime() - started) / 1_000_000;
        started = System.nanoTime();
        fleet("");
        long warm = (System.nanoTime() - started) / 1_000_000;
        // reported, not asserted: a timing assert fails on a busy machine
        System.out.printf("fleet completeness of %d streams: first page in %d ms, again in %d ms%n",
                STREAMS + NEVER_SERVED, cold, warm);
        int tenth = STREAMS / 10;
        assertThat(first.get("streams").longValue()).isEqualTo(STREAMS + NEVER_SERVED);
        assertThat(first.get("byState").get("CURRENT").longValue()).isEqualTo(STREAMS - 3 * tenth);
        assertThat(first.get("byState").get("CATCHING_UP").longValue()).isEqualTo(tenth);
        assertThat(first.get("byState").get("RETRYING").longValue()).isEqualTo(tenth);
        assertThat(first.get("byState").get("BLOCKED").longValue()).isEqualTo(tenth + NEVER_SERVED);
        assertThat(first.get("byEpoch").get("1").longValue()).isEqualTo(STREAMS - tenth + NEVER_SERVED);
        assertThat(first.get("byEpoch").get("2").longValue()).isEqualTo(tenth);
        assertThat(first.get("notCurrent").size()).isEqualTo(CompletenessController.DEFAULT_LIMIT);
        assertThat(first.get("next").stringValue()).isEqualTo("fleet/c00330");

        List<String> listed = new ArrayList<>();
        String after = "";
        int pages = 0;
        while (after != null) {
            JsonNode page = fleet("limit=" + CompletenessController.MAX_LIMIT + "&after=" + after);
            for (JsonNode n : page.get("notCurrent")) {
                String catalog = n.get("catalog").stringValue();
                listed.add(catalog);
                assertThat(n.get("tenant").stringValue()).isEqualTo("fleet");
                assertThat(n.get("state").stringValue() + " " + n.get("reason").stringValue()).as(catalog)
                        .startsWith(expectedState(catalog));
            }
            after = page.has("next") ? page.get("next").stringValue() : null;
            pages++;
        }
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= NEVER_SERVED; i++) {
            expected.add("gone-" + i);
        }
        expected.sort(null);
        List<String> served = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            if (i % 10 <= 2) {
                served.add("c%05d".formatted(i));
            }
        }
        served.addAll(expected);
        assertThat(listed).as("every stream not CURRENT once, in order").isEqualTo(served);
        assertThat(pages).isEqualTo((served.size() + CompletenessController.MAX_LIMIT - 1)
                / CompletenessController.MAX_LIMIT);

        // the fleet view derives what each stream's own completeness answers
        for (String catalog : List.of("c00000", "c00001", "c00002", "c00003", "c00004", "gone-3")) {
            JsonNode one = client("op").get().uri("/v1/projection-completeness?tenant=fleet&catalog={c}", catalog)
                    .retrieve().body(JsonNode.class);
            assertThat(one.get("state").stringValue() + " " + (one.has("reason") ? one.get("reason").stringValue()
                    : "")).as(catalog).startsWith(expectedState(catalog));
        }

        service.refresh();
        String metrics = client(null).get().uri("/actuator/prometheus").retrieve().body(String.class);
        assertThat(metrics).containsPattern("product_streams\\{[^}]*state=\"BLOCKED\"[^}]*\\} " + (tenth + NEVER_SERVED)
                + "(\\.0)?\\n");
        assertThat(metrics).containsPattern("product_streams\\{[^}]*state=\"CURRENT\"[^}]*\\} " + (STREAMS - 3 * tenth)
                + "(\\.0)?\\n");
        assertThat(metrics.lines().filter(l -> l.startsWith("product_streams{"))).as("one series per state")
                .hasSize(CompletenessState.values().length);
    }

    @Test
    void badPagingInputIsAProblemAndOnlyAnOperatorReadsTheFleet() {
        for (String query : List.of("limit=0", "limit=1001", "limit=ten", "after=nope", "tenant=fleet",
                "catalog=c1", "tenant=fleet&catalog=c1&limit=5", "tenant=fleet&catalog=c1&after=fleet/c0")) {
            problem("op", query, 400, "INVALID_BODY");
        }
        problem("op", "after=Bad/x", 400, "INVALID_ID");
        problem("c", "", 403, "FORBIDDEN");
        problem("r", "", 403, "FORBIDDEN");
        problem(null, "", 401, "UNAUTHENTICATED");
        assertThat(fleet("after=&limit=1000").get("streams").longValue()).isZero();
    }

    private static String expectedState(String catalog) {
        if (catalog.startsWith("gone-")) {
            return "BLOCKED REBUILD_FAILED: export FAILED";
        }
        return switch (Integer.parseInt(catalog.substring(1)) % 10) {
            case 0 -> "BLOCKED EPOCH_CHANGED: the product serves epoch 1 but the current epoch is 2";
            case 1 -> "CATCHING_UP BEHIND_OBSERVED_BOUNDARY";
            case 2 -> "RETRYING RECOVERY_FAILED: RESOLVER_UNAVAILABLE";
            default -> "CURRENT";
        };
    }

    private JsonNode fleet(String query) {
        ResponseEntity<JsonNode> r = client("op").get().uri("/v1/projection-completeness?" + query).retrieve()
                .toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s: %s", query, r.getBody()).isEqualTo(200);
        return r.getBody();
    }

    private void problem(String token, String query, int status, String code) {
        ResponseEntity<JsonNode> r = client(token).get().uri("/v1/projection-completeness?" + query).retrieve()
                .toEntity(JsonNode.class);
        assertThat(r.getStatusCode().value()).as("%s: %s", query, r.getBody()).isEqualTo(status);
        assertThat(r.getHeaders().getContentType().toString()).as(query).startsWith("application/problem+json");
        assertThat(r.getBody().get("code").stringValue()).as(query).isEqualTo(code);
    }
}
