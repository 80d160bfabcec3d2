package com.acme.catalog.resolver.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/** The header's rules (1 to 128 printable ASCII, once) and what the fingerprint covers. */
class IdempotencyKeyTest {

    @Test
    void acceptsOneToOneHundredTwentyEightPrintableAsciiCharacters() {
        assertThat(key("a").value()).isEqualTo("a");
        assertThat(key(" !~").value()).isEqualTo(" !~");
        assertThat(key("x".repeat(128)).value()).hasSize(128);
        assertThat(of(new MockHttpServletRequest("POST", "/p"), "{}")).as("no header: no key").isNull();
    }

    @Test
    void refusesEverythingElseWith400() {
        for (String bad : new String[] {"", "x".repeat(129), "caf\u00e9", "tab\there", "del\u007f", "nul\u0000"}) {
            assertThatThrownBy(() -> key(bad)).as("%s", bad).isInstanceOfSatisfying(ApiException.class,
                    e -> assertThat(e.code()).isEqualTo(ProblemCode.INVALID_IDEMPOTENCY_KEY));
        }
        MockHttpServletRequest twice = new MockHttpServletRequest("POST", "/p");
        twice.addHeader(IdempotencyKey.HEADER, "a");
        twice.addHeader(IdempotencyKey.HEADER, "a");
        assertThatThrownBy(() -> of(twice, "{}")).isInstanceOf(ApiException.class);
    }

    @Test
    void theFingerprintCoversMethodPathQueryAndBody() {
        String base = fingerprint("POST", "/v1/x", null, "{}");
        assertThat(fingerprint("POST", "/v1/x", null, "{}")).isEqualTo(base);
        assertThat(fingerprint("PUT", "/v1/x", null, "{}")).isNotEqualTo(base);
        assertThat(fingerprint("POST", "/v1/y", null, "{}")).isNotEqualTo(base);
        assertThat(fingerprint("POST", "/v1/x", "expectedRevision=1", "{}")).isNotEqualTo(base);
        assertThat(fingerprint("POST", "/v1/x", null, "{ }")).isNotEqualTo(base);
        // parts cannot run into each other
        assertThat(fingerprint("POST", "/v1/x", "a", "")).isNotEqualTo(fingerprint("POST", "/v1/x", "", "a"));
    }

    private static IdempotencyKey key(String value) {
        MockHttpServletRequest r = new MockHttpServletRequest("POST", "/p");
        r.addHeader(IdempotencyKey.HEADER, value);
        return of(r, "{}");
    }

    private static IdempotencyKey of(MockHttpServletRequest r, String body) {
        return IdempotencyKey.of(r, "writer", () -> body.getBytes(StandardCharsets.UTF_8));
    }

    private static String fingerprint(String method, String path, String query, String body) {
        MockHttpServletRequest r = new MockHttpServletRequest(method, path);
        r.setQueryString(query);
        return IdempotencyKey.fingerprint(r, body.getBytes(StandardCharsets.UTF_8));
    }
}
