package com.acme.catalog.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The public view against both services from their jars: an item is public as the revision its latest PUBLIC
 * release names, live (one event per delivery and several changes in one transaction), and after a rebuild
 * (export → shadow load → catch-up → cutover), including releases put after the rebuild that name revisions made
 * before it and an item re-created after it. The product's public-view-v1 checksum equals the resolver's at every
 * step. On the main line before this change the items updated after their release answered 404 after the
 * rebuild, and the public-view-v1 profile did not exist.
 */
class PublicViewSystemIT {

    private static final String T = "acme";
    private static final String C = "view";

    @Test
    void theLatestPublicReleasesRevisionIsServedLiveInTransactionsAndAfterARebuild() throws Exception {
        try (TwoServices sys = new TwoServices()) {
            sys.serve(T, C);
            sys.startResolver();
            sys.startProduct(sys.resolverUrl());
            sys.registerProduct(T, C);
            String s = sys.resolverUrl() + "/v1/streams/" + T + "/" + C;

            // released at revision 1, then updated twice
            put(sys, s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":1}}");
            put(sys, s + "/releases/spring", release("PUBLIC", "e", 1));
            put(sys, s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":2}}");
            put(sys, s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":3}}");
            // one transaction creates f, releases its revision 1 and writes its revision 2
            sys.ok("POST", s + "/transactions", "w", """
                    {"changes":[{"op":"upsertItem","itemId":"f","attributes":{"name":"F","v":1}},
                                {"op":"putRelease","releaseId":"batch","visibility":"PUBLIC",
                                 "items":[{"itemId":"f","revision":1}]},
                                {"op":"upsertItem","itemId":"f","attributes":{"name":"F","v":2}}]}
                    """);
            // two PUBLIC releases name g: the one made last wins, though it names the older revision
            put(sys, s + "/items/g", "{\"attributes\":{\"name\":\"G\",\"v\":1}}");
            put(sys, s + "/items/g", "{\"attributes\":{\"name\":\"G\",\"v\":2}}");
            put(sys, s + "/releases/new", release("PUBLIC", "g", 2));
            put(sys, s + "/releases/newest", release("PUBLIC", "g", 1));
            // a PRIVATE release hides nothing; re-putting a PUBLIC release as PRIVATE withdraws it
            put(sys, s + "/items/p", "{\"attributes\":{\"name\":\"P\",\"v\":1}}");
            put(sys, s + "/releases/pub", release("PUBLIC", "p", 1));
            put(sys, s + "/releases/priv", release("PRIVATE", "p", 1));
            put(sys, s + "/items/q", "{\"attributes\":{\"name\":\"Q\",\"v\":1}}");
            put(sys, s + "/releases/qr", release("PUBLIC", "q", 1));
            put(sys, s + "/items/q", "{\"attributes\":{\"name\":\"Q\",\"v\":2}}");
            put(sys, s + "/releases/qr", release("PRIVATE", "q", 2));
            // deleted after its release: hidden
            put(sys, s + "/items/d", "{\"attributes\":{\"name\":\"D\",\"v\":1}}");
            put(sys, s + "/releases/dr", release("PUBLIC", "d", 1));
            sys.ok("DELETE", s + "/items/d", "w", null);
            // updated twice now, released at its first revision only after the rebuild
            put(sys, s + "/items/h", "{\"attributes\":{\"name\":\"H\",\"v\":1}}");
            put(sys, s + "/items/h", "{\"attributes\":{\"name\":\"H\",\"v\":2}}");

            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("e", "1 spring 1");
            expected.put("f", "1 batch 1");
            expected.put("g", "1 newest 1");
            expected.put("p", "1 pub 1");
            expected.put("q", null);
            expected.put("d", null);
            expected.put("h", null);
            sys.assertConverged(T, C);
            assertServed(sys, expected, "live");

            JsonNode started = sys.ok("POST", sys.productUrl() + "/v1/rebuilds", "op",
                    "{\"tenant\":\"" + T + "\",\"catalog\":\"" + C + "\"}");
            String id = started.path("rebuildId").stringValue();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
                String phase = sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null).path("phase")
                        .stringValue();
                return phase.equals("DONE") || phase.equals("FAILED");
            });
            assertThat(sys.ok("GET", sys.productUrl() + "/v1/rebuilds/" + id, "op", null).path("phase")
                    .stringValue()).isEqualTo("DONE");
            sys.assertConverged(T, C);
            assertServed(sys, expected, "after the rebuild");

            // after the rebuild: a release of a revision made before it, and a re-created item
            put(sys, s + "/releases/late", release("PUBLIC", "h", 1));
            put(sys, s + "/items/d", "{\"attributes\":{\"name\":\"D\",\"v\":3}}");
            expected.put("h", "1 late 1");
            expected.put("d", "1 dr 1");
            JsonNode view = sys.assertConverged(T, C);
            assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(6);
            assertServed(sys, expected, "live after the rebuild");
        }
    }

    private static void put(TwoServices sys, String url, String body) throws Exception {
        sys.ok("PUT", url, "w", body);
    }

    private static String release(String visibility, String item, int revision) {
        return "{\"visibility\":\"" + visibility + "\",\"items\":[{\"itemId\":\"" + item + "\",\"revision\":"
                + revision + "}]}";
    }

    /** {@code expected}: item → "revision releaseId v" as the public API must serve it, null for 404. */
    private static void assertServed(TwoServices sys, Map<String, String> expected, String when) throws Exception {
        for (Map.Entry<String, String> e : expected.entrySet()) {
            TwoServices.Response r = sys.call("GET", sys.productUrl() + "/v1/catalog/" + T + "/" + C + "/items/"
                    + e.getKey(), null, null);
            if (e.getValue() == null) {
                assertThat(r.status()).as("%s %s: %s", when, e.getKey(), r.body()).isEqualTo(404);
                continue;
            }
            assertThat(r.status()).as("%s %s: %s", when, e.getKey(), r.body()).isEqualTo(200);
            JsonNode item = r.json();
            assertThat(item.path("revision").intValue() + " " + item.path("releaseId").stringValue() + " "
                    + item.path("attributes").path("v").intValue()).as("%s %s", when, e.getKey())
                    .isEqualTo(e.getValue());
        }
    }
}
