package com.acme.catalog.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every limit of {@link JsonLimits} at its value passes and one past it is refused, the streaming check agrees with
 * the tree check, and what the limits allow parses with the product's (default) parser inside a delivery.
 */
class JsonLimitsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static String nested(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    }

    static String members(int n) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":1");
        }
        return b.append('}').toString();
    }

    static List<String[]> atAndPast() {
        return List.of(
                new String[] {"depth", nested(JsonLimits.MAX_DEPTH), nested(JsonLimits.MAX_DEPTH + 1)},
                new String[] {"depth through arrays", "{\"a\":" + "[".repeat(JsonLimits.MAX_DEPTH - 1)
                        + "]".repeat(JsonLimits.MAX_DEPTH - 1) + "}", "{\"a\":" + "[".repeat(JsonLimits.MAX_DEPTH)
                        + "]".repeat(JsonLimits.MAX_DEPTH) + "}"},
                new String[] {"string", "{\"s\":\"" + "x".repeat(JsonLimits.MAX_STRING_CHARS) + "\"}",
                        "{\"s\":\"" + "x".repeat(JsonLimits.MAX_STRING_CHARS + 1) + "\"}"},
                new String[] {"key", "{\"" + "k".repeat(JsonLimits.MAX_KEY_CHARS) + "\":1}",
                        "{\"" + "k".repeat(JsonLimits.MAX_KEY_CHARS + 1) + "\":1}"},
                new String[] {"members", members(JsonLimits.MAX_MEMBERS), members(JsonLimits.MAX_MEMBERS + 1)},
                new String[] {"NUL", "{\"s\":\"a\\u0001b\"}", "{\"s\":\"a\\u0000b\"}"},
                new String[] {"NUL in a key", "{\"a\\u0001\":1}", "{\"a\\u0000\":1}"},
                new String[] {"surrogates", "{\"s\":\"\\ud83d\\ude00\"}", "{\"s\":\"\\ud83d x\"}"},
                new String[] {"low surrogate alone", "{\"s\":\"\\u00e9\"}",
                        "{\"s\":\"x\\ude00\"}"});
    }

    @Test
    void eachLimitAtItsValuePassesAndOnePastIsRefused() {
        for (String[] c : atAndPast()) {
            JsonNode at = JSON.readTree(c[1]);
            JsonNode past = JSON.readTree(c[2]);
            assertThatCode(() -> JsonLimits.checkValue("attributes", at)).as(c[0]).doesNotThrowAnyException();
            assertThatThrownBy(() -> JsonLimits.checkValue("attributes", past)).as(c[0])
                    .isInstanceOf(JsonLimits.Refused.class)
                    .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ProblemCode.INVALID_BODY));
            assertThat(streamed(c[1])).as(c[0] + " streamed").isNull();
            assertThat(streamed(c[2])).as(c[0] + " streamed").isNotNull();
        }
    }

    @Test
    void theTextRuleAloneIgnoresTheSizeLimits() {
        assertThatCode(() -> JsonLimits.checkText("body", JSON.readTree(nested(JsonLimits.MAX_DEPTH + 5))))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> JsonLimits.checkText("body", JSON.readTree("{\"x\":[{\"y\":\"\\u0000\"}]}")))
                .isInstanceOf(JsonLimits.Refused.class);
        assertThat(JsonLimits.textProblem("plain é 😀")).isNull();
    }

    @Test
    void attributesTextCountsTheNameTwice() {
        int half = JsonLimits.MAX_TEXT_BYTES / 2;
        // six strings of at most MAX_STRING_CHARS, exactly MAX_TEXT_BYTES with the name twice
        String name = "n".repeat(half / 4);
        StringBuilder at = new StringBuilder("{\"name\":\"" + name + "\"");
        int rest = JsonLimits.MAX_TEXT_BYTES - 2 * name.length();
        for (int i = 0; rest > 0; i++) {
            int n = Math.min(rest, JsonLimits.MAX_STRING_CHARS);
            at.append(",\"s").append(i).append("\":\"").append("x".repeat(n)).append('"');
            rest -= n;
        }
        at.append(",\"n\":12345,\"b\":true}");
        JsonNode ok = JSON.readTree(at.toString());
        assertThatCode(() -> JsonLimits.checkAttributes(ok)).doesNotThrowAnyException();
        JsonNode over = JSON.readTree(at.toString().replace("\"name\":\"", "\"name\":\"n"));
        assertThatThrownBy(() -> JsonLimits.checkAttributes(over)).isInstanceOf(JsonLimits.Refused.class)
                .hasMessageContaining(String.valueOf(JsonLimits.MAX_TEXT_BYTES));
    }

    @Test
    void theStreamingCheckAgreesWithTheTreeOnRandomDocuments() {
        long seed = Long.getLong("test.seed", 20261201L);
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            String doc = randomObject(random, 1);
            boolean tree;
            try {
                JsonLimits.checkValue("attributes", JSON.readTree(doc));
                tree = true;
            } catch (JsonLimits.Refused e) {
                tree = false;
            }
            // the streaming check also bounds the text at half the budget; these documents stay far below it
            assertThat(streamed(doc) == null).as("seed %d: %s", seed, doc).isEqualTo(tree);
        }
    }

    private static String randomObject(Random r, int depth) {
        StringBuilder b = new StringBuilder("{");
        int n = r.nextInt(depth > 30 ? 2 : 4);
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append('"').append(r.nextInt(50) == 0 ? "k\\u0000" : "k" + i).append("\":");
            int kind = r.nextInt(6);
            if (kind == 0 && depth < 36) {
                b.append(randomObject(r, depth + 1));
            } else if (kind == 1 && depth < 36) {
                b.append('[').append(randomObject(r, depth + 2)).append(']');
            } else if (kind == 2) {
                b.append(r.nextInt(40) == 0 ? "\"\\udc00\"" : "\"text\"");
            } else {
                b.append(r.nextInt(1000));
            }
        }
        return b.append('}').toString();
    }

    private static String streamed(String doc) {
        try (JsonParser p = JSON.createParser(doc)) {
            p.nextToken();
            String problem = JsonLimits.skipChecked(p);
            assertThat(p.nextToken()).as("consumed the whole value").isNull();
            return problem;
        }
    }

    @Test
    void whatTheLimitsAllowParsesInADeliveryWithTheProductsDefaultParser() {
        // a delivery nests the attributes four levels deeper: {"events":[{"payload":{"attributes":…}}]}
        assertThat(JsonLimits.MAX_DEPTH + 4).isLessThan(StreamReadConstraints.defaults().getMaxNestingDepth());
        assertThat(JsonLimits.MAX_KEY_CHARS).isLessThan(StreamReadConstraints.defaults().getMaxNameLength());
        assertThat(JsonLimits.MAX_STRING_CHARS).isLessThan(StreamReadConstraints.defaults().getMaxStringLength());
        String delivery = "{\"events\":[{\"position\":1,\"payload\":{\"attributes\":" + nested(JsonLimits.MAX_DEPTH)
                + "}}]}";
        assertThatCode(() -> JSON.readTree(delivery)).doesNotThrowAnyException();
        assertThat(JsonLimits.MAX_DELIVERY_BYTES).isGreaterThan(JsonLimits.MAX_EVENT_WIRE_BYTES + 64 + 32);
    }

    @Test
    void utf8LengthIsTheEncodedLength() {
        for (String s : List.of("", "abc", "é", "€", "😀", "a😀é€z")) {
            assertThat(JsonLimits.utf8Length(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        }
    }
}
