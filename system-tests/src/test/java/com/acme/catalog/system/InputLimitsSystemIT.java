package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.JsonLimits;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resolver refuses at the door anything the product cannot consume: for every limit of
 * {@link JsonLimits}, an item written exactly at the limit is accepted, released PUBLIC and served by the product
 * as written (both checksum profiles equal), and one past the limit is 400 {@code INVALID_BODY} with nothing
 * written. On the code before the limits the largest wire never reached the product (its delivery was over the
 * inbox's cap) and everything after it waited; a depth the resolver took was one the product's parser refused.
 */
class InputLimitsSystemIT {

    private static final String T = "acme";
    private static final String C = "limits";

    @Test
    void aWriteAtEachLimitPropagatesAndOnePastIsRefusedWithNothingWritten() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;
            sys.ok("PUT", s + "/items/seed", "w", "{\"attributes\":{\"name\":\"seed\"}}");
            sys.startProduct(sys.resolverUrl());
            sys.registerProduct(T, C);

            Map<String, String> at = new LinkedHashMap<>();
            Map<String, String> past = new LinkedHashMap<>();
            at.put("depth", nested(JsonLimits.MAX_DEPTH));
            past.put("depth", nested(JsonLimits.MAX_DEPTH + 1));
            at.put("string", "{\"name\":\"s\",\"s\":\"" + "y".repeat(JsonLimits.MAX_STRING_CHARS) + "\"}");
            past.put("string", "{\"name\":\"s\",\"s\":\"" + "y".repeat(JsonLimits.MAX_STRING_CHARS + 1) + "\"}");
            at.put("key", "{\"" + "k".repeat(JsonLimits.MAX_KEY_CHARS) + "\":1}");
            past.put("key", "{\"" + "k".repeat(JsonLimits.MAX_KEY_CHARS + 1) + "\":1}");
            at.put("members", members(JsonLimits.MAX_MEMBERS));
            past.put("members", members(JsonLimits.MAX_MEMBERS + 1));
            at.put("text", text(JsonLimits.MAX_TEXT_BYTES));
            past.put("text", text(JsonLimits.MAX_TEXT_BYTES + 1));
            for (String limit : at.keySet()) {
                refused(sys, s, "past-" + limit, past.get(limit));
                sys.ok("PUT", s + "/items/at-" + limit, "w", "{\"attributes\":" + at.get(limit) + "}");
            }
            for (int i = 0; i < 4; i++) {
                sys.ok("PUT", s + "/items/filler-" + i, "w", "{\"attributes\":{\"name\":\"filler\"}}");
            }

            // the wire: a probe of the same shape and id length gives the envelope's size (positions stay 2 digits)
            long head = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
            assertThat(head).isBetween(10L, 90L);
            sys.ok("PUT", s + "/items/wire-probe", "w", "{\"attributes\":" + wire(0, "") + "}");
            String probe = (String) TwoServices.rows(sys.resolverDb,
                    "SELECT wire FROM resolver.outbox WHERE aggregate_id = 'wire-probe'").get(0).get("wire");
            // occurredAt loses its fraction at .000 ms: count the envelope as if it had one
            long envelope = JsonLimits.utf8Length(probe) + (probe.matches(".*\"occurredAt\":\"[^\".]+Z\".*") ? 4 : 0);
            long room = JsonLimits.MAX_EVENT_WIRE_BYTES - envelope;
            int numbers = (int) ((room - 1) / 8);
            String exact = wire(numbers, "x".repeat((int) (room - (numbers * 8L - 1))));
            // 5 past: over the limit even when this write's occurredAt has no fraction
            String over = wire(numbers, "x".repeat((int) (room - (numbers * 8L - 1)) + 5));
            refused(sys, s, "wire-past1", over);
            sys.ok("PUT", s + "/items/wire-exact", "w", "{\"attributes\":" + exact + "}");
            long exactBytes = TwoServices.scalar(sys.resolverDb,
                    "SELECT octet_length(wire) FROM resolver.outbox WHERE aggregate_id = 'wire-exact'");
            assertThat(exactBytes).isIn((long) JsonLimits.MAX_EVENT_WIRE_BYTES, JsonLimits.MAX_EVENT_WIRE_BYTES - 4L);
            at.put("wire", exact);

            // everything at a limit goes public, and a write after them must not wait behind any
            StringBuilder items = new StringBuilder();
            for (String limit : at.keySet()) {
                String id = limit.equals("wire") ? "wire-exact" : "at-" + limit;
                items.append(items.isEmpty() ? "" : ",").append("{\"itemId\":\"").append(id)
                        .append("\",\"revision\":1}");
            }
            sys.ok("PUT", s + "/releases/limits", "w", "{\"visibility\":\"PUBLIC\",\"items\":[" + items + "]}");
            sys.ok("PUT", s + "/items/after", "w", "{\"attributes\":{\"name\":\"after\"}}");
            sys.ok("PUT", s + "/releases/after", "w",
                    "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"after\",\"revision\":1}]}");

            String catalog = sys.productUrl() + "/v1/catalog/" + T + "/" + C;
            await().atMost(Duration.ofSeconds(60)).until(() -> sys.call("GET", catalog + "/items/after", null, null)
                    .status() == 200);
            for (Map.Entry<String, String> e : at.entrySet()) {
                String id = e.getKey().equals("wire") ? "wire-exact" : "at-" + e.getKey();
                JsonNode served = sys.ok("GET", catalog + "/items/" + id, null, null);
                assertThat(served.path("attributes")).as(e.getKey()).isEqualTo(TwoServices.JSON.readTree(e.getValue()));
            }
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").toString()).isNotEmpty();
            assertThat(TwoServices.scalar(sys.resolverDb,
                    "SELECT count(*) FROM resolver.outbox WHERE aggregate_id LIKE 'past-%' OR aggregate_id = 'wire-past1'"))
                    .isZero();
        }
    }

    private static void refused(TwoServices sys, String s, String id, String attributes) throws Exception {
        long before = sys.ok("GET", s + "/cursor", "op", null).path("position").longValue();
        TwoServices.Response r = sys.call("PUT", s + "/items/" + id, "w", "{\"attributes\":" + attributes + "}");
        assertThat(r.status()).as("%s: %s", id, r.body().length() > 300 ? r.body().substring(0, 300) : r.body())
                .isEqualTo(400);
        assertThat(r.json().path("code").stringValue()).as(id).isEqualTo("INVALID_BODY");
        assertThat(sys.ok("GET", s + "/cursor", "op", null).path("position").longValue()).as(id).isEqualTo(before);
    }

    static String nested(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    }

    static String members(int n) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
        }
        return b.append('}').toString();
    }

    /** Attributes whose strings hold exactly {@code bytes} bytes, the name counted twice, each within the limit. */
    static String text(int bytes) {
        String name = "word ".repeat(1000);
        bytes -= 2 * name.length();
        ObjectNode a = TwoServices.JSON.createObjectNode().put("name", name);
        for (int i = 0; bytes > 0; i++) {
            int n = Math.min(bytes, JsonLimits.MAX_STRING_CHARS);
            StringBuilder words = new StringBuilder(n);
            for (int w = 0; words.length() < n; w++) {
                words.append("w").append(i).append('x').append(w).append(' ');
            }
            a.put("s" + i, words.substring(0, n));
            bytes -= n;
        }
        return a.toString();
    }

    /** Item attributes of the wire probe's shape: {@code numbers} 7-digit numbers and a pad string. */
    static String wire(int numbers, String pad) {
        StringBuilder b = new StringBuilder("{\"name\":\"wire\",\"pad\":\"").append(pad).append("\",\"n\":[");
        for (int i = 0; i < numbers; i++) {
            b.append(i == 0 ? "" : ",").append(1234567);
        }
        return b.append("]}").toString();
    }
}
