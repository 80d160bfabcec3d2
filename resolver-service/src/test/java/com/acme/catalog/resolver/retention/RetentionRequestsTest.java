package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RetentionRequestsTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void parsesAValidRegistration() {
        var r = RetentionRequests.registration(json("""
                {"consumerId":"product-1","tenant":"acme","catalog":"shoes","epoch":3,
                 "deliveryUrl":"https://product:8082/v1/inbox/events","extra":true}"""));
        assertThat(r.consumerId()).isEqualTo("product-1");
        assertThat(r.stream().toString()).isEqualTo("acme/shoes");
        assertThat(r.epoch()).isEqualTo(3);
        assertThat(r.deliveryUrl()).isEqualTo("https://product:8082/v1/inbox/events");
        assertThat(RetentionRequests.registration(json("""
                {"consumerId":"p","tenant":"acme","catalog":"shoes","epoch":1,"deliveryUrl":null}"""))
                .deliveryUrl()).isNull();
    }

    @Test
    void numbersMustBeIntegersInRange() {
        List<String> bad = List.of("0", "-1", "1.5", "\"1\"", "null", "9223372036854775808", "true");
        for (String epoch : bad) {
            assertInvalidBody(() -> RetentionRequests.progress(json(
                    "{\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":" + epoch + ",\"position\":1}")));
        }
        for (String position : List.of("-1", "2.0", "\"3\"", "null")) {
            assertInvalidBody(() -> RetentionRequests.progress(json(
                    "{\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":1,\"position\":" + position + "}")));
        }
        assertThat(RetentionRequests.progress(json("{\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":1,\"position\":0}"))
                .position()).isZero();
    }

    @Test
    void ttlMustBeAPositiveWholeNumberOfSeconds() {
        assertThat(RetentionRequests.ttl(json("{\"ttlSeconds\":90}"))).isEqualTo(Duration.ofSeconds(90));
        for (String ttl : List.of("0", "-5", "1.5", "\"60\"", "1e12", "99999999999999")) {
            assertInvalidBody(() -> RetentionRequests.ttl(json("{\"ttlSeconds\":" + ttl + "}")));
        }
        assertInvalidBody(() -> RetentionRequests.ttl(json("{}")));
        assertInvalidBody(() -> RetentionRequests.ttl(json("[]")));
    }

    @Test
    void idsAreValidatedAsIds() {
        assertThat(RetentionRequests.leaseId("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"))
                .isEqualTo(UUID.fromString("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"));
        for (String id : new String[] {"xyz", "1-1-1-1-1", "", null, "0193a1b2c3d47e5f8a9b0c1d2e3f4a5b"}) {
            assertThatThrownBy(() -> RetentionRequests.leaseId(id)).isInstanceOf(InvalidIdException.class);
        }
        assertThatThrownBy(() -> RetentionRequests.consumerId("a b")).isInstanceOf(InvalidIdException.class);
        assertThatThrownBy(() -> RetentionRequests.registration(json(
                "{\"consumerId\":\"p\",\"tenant\":\"Acme\",\"catalog\":\"c\",\"epoch\":1}")))
                .isInstanceOf(InvalidIdException.class);
    }

    @Test
    void deliveryUrlMustBeAbsoluteHttp() {
        List<String> bad = new ArrayList<>(List.of("\"ftp://x/y\"", "\"/relative\"", "\"http://\"", "\"not a url\"", "7"));
        bad.add("\"http://h/" + "x".repeat(RetentionRequests.MAX_URL_LENGTH) + "\"");
        for (String url : bad) {
            assertInvalidBody(() -> RetentionRequests.registration(json(
                    "{\"consumerId\":\"p\",\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":1,\"deliveryUrl\":" + url + "}")));
        }
    }

    @Test
    void leaseOwnersArePrintableAndBounded() {
        String base = "{\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":1,\"ttlSeconds\":60,\"owner\":";
        assertThat(RetentionRequests.newLease(json(base + "\"rebuild 42 on product-1\"}")).owner())
                .isEqualTo("rebuild 42 on product-1");
        for (String owner : List.of("\"\"", "\"   \"", "\"a\\u0000b\"", "\"" + "o".repeat(201) + "\"", "5", "null")) {
            assertInvalidBody(() -> RetentionRequests.newLease(json(base + owner + "}")));
        }
    }

    @Test
    void filtersNeedATenantForACatalog() {
        RetentionRequests.filter(null, null);
        RetentionRequests.filter("acme", null);
        RetentionRequests.filter("acme", "shoes");
        assertInvalidBody(() -> RetentionRequests.filter(null, "shoes"));
        assertThatThrownBy(() -> RetentionRequests.filter("ACME", null)).isInstanceOf(InvalidIdException.class);
        assertThat(RetentionRequests.optionalEpoch(null)).isNull();
        assertThat(RetentionRequests.optionalEpoch("4")).isEqualTo(4L);
        assertInvalidBody(() -> RetentionRequests.optionalEpoch("0"));
        assertInvalidBody(() -> RetentionRequests.optionalEpoch("four"));
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }

    private static void assertInvalidBody(Runnable r) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.code()).isEqualTo(ProblemCode.INVALID_BODY));
    }
}
