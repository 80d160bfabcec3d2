package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;

/**
 * Bad input for every retention endpoint (unknown ids, malformed ids, negative or missing numbers, ttl 0 or huge,
 * wrong roles, wrong tenants, another epoch): each answer is problem+json with a stable code (ProblemCode), and no
 * retention row, outbox row or cursor changes.
 */
class RetentionBadInputIT extends AbstractRetentionIT {

    static final StreamId S = new StreamId("acme", "bad");
    static final String UNKNOWN_LEASE = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

    private String leaseId;
    private final List<String> failures = new ArrayList<>();

    @BeforeEach
    void stream() {
        if (outboxPositions(S).isEmpty()) {
            write(S, 5);
            write(new StreamId("globex", "bad"), 2);
            assertThat(register("c", "good", S, 1).status()).isEqualTo(201);
        }
        if (leaseId == null) {
            leaseId = lease("c", S, 1, 300).text("leaseId");
        }
    }

    @Test
    void registerConsumer() {
        String path = "/v1/retention/consumers";
        Map<String, Object> ok = Map.of("consumerId", "new-one", "tenant", "acme", "catalog", "bad", "epoch", 1);
        refused(HttpMethod.POST, path, null, ok, 401, "UNAUTHENTICATED");
        refused(HttpMethod.POST, path, "w", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "r", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "op", "[]", 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", "not json", 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", without(ok, "consumerId"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", with(ok, "consumerId", "bad id!"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", with(ok, "consumerId", "x".repeat(129)), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", with(ok, "tenant", "ACME"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", without(ok, "catalog"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", 0), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", -1), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", "1"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", 1.5), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", without(ok, "epoch"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", 2), 409, "EPOCH_MISMATCH");
        refused(HttpMethod.POST, path, "op", with(ok, "deliveryUrl", "ftp://product/inbox"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "deliveryUrl", "not a url"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "deliveryUrl", 42), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "deliveryUrl", "http://h/" + "x".repeat(2048)), 400,
                "INVALID_BODY");
        refused(HttpMethod.POST, path, "c-acme", with(ok, "tenant", "globex"), 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "c-acme", with(ok, "consumerId", "good"), 403, "FORBIDDEN");
        assertThat(failures).isEmpty();
    }

    @Test
    void reportProgress() {
        String path = "/v1/retention/consumers/good/progress";
        Map<String, Object> ok = Map.of("tenant", "acme", "catalog", "bad", "epoch", 1, "position", 3);
        refused(HttpMethod.PUT, path, null, ok, 401, "UNAUTHENTICATED");
        refused(HttpMethod.PUT, path, "w", ok, 403, "FORBIDDEN");
        refused(HttpMethod.PUT, path, "c-acme", ok, 403, "FORBIDDEN");
        refused(HttpMethod.PUT, "/v1/retention/consumers/nobody/progress", "c", ok, 404, "NOT_FOUND");
        refused(HttpMethod.PUT, "/v1/retention/consumers/bad!id/progress", "c", ok, 400, "INVALID_ID");
        refused(HttpMethod.PUT, path, "c", with(ok, "position", -1), 400, "INVALID_BODY");
        refused(HttpMethod.PUT, path, "c", with(ok, "position", "3"), 400, "INVALID_BODY");
        refused(HttpMethod.PUT, path, "c", with(ok, "position", 1e30), 400, "INVALID_BODY");
        refused(HttpMethod.PUT, path, "c", without(ok, "position"), 400, "INVALID_BODY");
        refused(HttpMethod.PUT, path, "c", with(ok, "epoch", 0), 400, "INVALID_BODY");
        refused(HttpMethod.PUT, path, "c", with(ok, "epoch", 2), 409, "EPOCH_MISMATCH");
        // ahead of the cursor is no bad input but a rollback signal (docs/epochs.md; RollbackDetectionIT)
        refused(HttpMethod.PUT, path, "c", with(ok, "position", 6), 503, "HISTORY_ROLLED_BACK");
        refused(HttpMethod.PUT, path, "c", with(ok, "tenant", "globex"), 404, "NOT_FOUND");
        refused(HttpMethod.PUT, path, "c-acme", with(ok, "tenant", "globex"), 403, "FORBIDDEN");
        refused(HttpMethod.PUT, path, "c", "{", 400, "INVALID_BODY");
        assertThat(failures).isEmpty();
    }

    @Test
    void deregisterConsumer() {
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good", null, null, 401, "UNAUTHENTICATED");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good", "c", null, 403, "FORBIDDEN");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good", "w", null, 403, "FORBIDDEN");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/nobody", "op", null, 404, "NOT_FOUND");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/bad!id", "op", null, 400, "INVALID_ID");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good?catalog=bad", "op", null, 400, "INVALID_BODY");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good?tenant=BAD", "op", null, 400, "INVALID_ID");
        refused(HttpMethod.DELETE, "/v1/retention/consumers/good?tenant=globex", "op", null, 404, "NOT_FOUND");
        assertThat(failures).isEmpty();
    }

    @Test
    void createLease() {
        String path = "/v1/retention/leases";
        Map<String, Object> ok = Map.of("tenant", "acme", "catalog", "bad", "epoch", 1, "ttlSeconds", 60,
                "owner", "rebuild");
        refused(HttpMethod.POST, path, null, ok, 401, "UNAUTHENTICATED");
        refused(HttpMethod.POST, path, "w", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "r", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "c-acme", with(ok, "tenant", "globex"), 403, "FORBIDDEN");
        for (Object ttl : new Object[] {0, -5, 86_401, 1_000_000_000_000L, "60", 1.5}) {
            refused(HttpMethod.POST, path, "op", with(ok, "ttlSeconds", ttl), 400, "INVALID_BODY");
        }
        refused(HttpMethod.POST, path, "op", without(ok, "ttlSeconds"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", without(ok, "owner"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "owner", ""), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "owner", "o".repeat(201)), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "owner", "line\nbreak"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", 2), 409, "EPOCH_MISMATCH");
        refused(HttpMethod.POST, path, "op", with(ok, "epoch", -3), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", with(ok, "catalog", "Bad_Catalog"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", "[1,2]", 400, "INVALID_BODY");
        assertThat(failures).isEmpty();
    }

    @Test
    void renewLease() {
        String path = "/v1/retention/leases/" + leaseId + "/renew";
        Map<String, Object> ok = Map.of("ttlSeconds", 60);
        refused(HttpMethod.POST, path, null, ok, 401, "UNAUTHENTICATED");
        refused(HttpMethod.POST, path, "w", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "c-acme", ok, 403, "FORBIDDEN");
        refused(HttpMethod.POST, "/v1/retention/leases/xyz/renew", "op", ok, 400, "INVALID_ID");
        refused(HttpMethod.POST, "/v1/retention/leases/" + UNKNOWN_LEASE + "/renew", "op", ok, 404, "NOT_FOUND");
        for (Object ttl : new Object[] {0, -1, 86_401, "60"}) {
            refused(HttpMethod.POST, path, "c", Map.of("ttlSeconds", ttl), 400, "INVALID_BODY");
        }
        refused(HttpMethod.POST, path, "c", Map.of(), 400, "INVALID_BODY");
        assertThat(failures).isEmpty();
    }

    @Test
    void releaseLease() {
        String path = "/v1/retention/leases/" + leaseId;
        refused(HttpMethod.DELETE, path, null, null, 401, "UNAUTHENTICATED");
        refused(HttpMethod.DELETE, path, "w", null, 403, "FORBIDDEN");
        refused(HttpMethod.DELETE, path, "c-acme", null, 403, "FORBIDDEN");
        refused(HttpMethod.DELETE, "/v1/retention/leases/not-a-uuid", "op", null, 400, "INVALID_ID");
        refused(HttpMethod.DELETE, "/v1/retention/leases/" + UNKNOWN_LEASE, "op", null, 404, "NOT_FOUND");
        assertThat(failures).isEmpty();
    }

    @Test
    void readStatus() {
        refused(HttpMethod.GET, "/v1/retention/streams/acme/bad", null, null, 401, "UNAUTHENTICATED");
        refused(HttpMethod.GET, "/v1/retention/streams/acme/bad", "w", null, 403, "FORBIDDEN");
        refused(HttpMethod.GET, "/v1/retention/streams/globex/bad", "c-acme", null, 403, "FORBIDDEN");
        refused(HttpMethod.GET, "/v1/retention/streams/ACME/bad", "op", null, 400, "INVALID_ID");
        refused(HttpMethod.GET, "/v1/retention/streams/acme/bad?epoch=0", "op", null, 400, "INVALID_BODY");
        refused(HttpMethod.GET, "/v1/retention/streams/acme/bad?epoch=x", "op", null, 400, "INVALID_BODY");
        refused(HttpMethod.GET, "/v1/retention/streams/acme/unknown", "op", null, 404, "NOT_FOUND");
        assertThat(failures).isEmpty();
    }

    @Test
    void prune() {
        String path = "/v1/retention/prune";
        refused(HttpMethod.POST, path, null, Map.of(), 401, "UNAUTHENTICATED");
        refused(HttpMethod.POST, path, "c", Map.of(), 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "w", Map.of(), 403, "FORBIDDEN");
        refused(HttpMethod.POST, path, "op", Map.of("tenant", "BAD"), 400, "INVALID_ID");
        refused(HttpMethod.POST, path, "op", Map.of("catalog", "bad"), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", Map.of("tenant", 5), 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", "[]", 400, "INVALID_BODY");
        refused(HttpMethod.POST, path, "op", Map.of("tenant", "acme", "catalog", "unknown"), 404, "NOT_FOUND");
        assertThat(failures).isEmpty();
    }

    /** Sends the request and records a failure unless it is the expected problem and nothing changed. */
    private void refused(HttpMethod method, String path, String token, Object body, int status, String code) {
        String before = fingerprint();
        Response r = call(method, path, token, body);
        String what = method + " " + path + " token=" + token + " body=" + abbreviate(body);
        if (r.status() != status || !code.equals(r.code())) {
            failures.add(what + ": expected " + status + " " + code + ", got " + r.status() + " " + r.body());
        } else if (r.contentType() == null || !r.contentType().startsWith("application/problem+json")) {
            failures.add(what + ": content type " + r.contentType());
        } else if (!before.equals(fingerprint())) {
            failures.add(what + ": changed the database");
        }
    }

    private static String abbreviate(Object body) {
        String s = String.valueOf(body);
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        m.put(key, value);
        return m;
    }

    private static Map<String, Object> without(Map<String, Object> base, String key) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        m.remove(key);
        return m;
    }
}
