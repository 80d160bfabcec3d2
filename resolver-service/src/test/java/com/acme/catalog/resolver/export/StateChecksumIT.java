package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
import com.acme.catalog.contracts.checksum.PublicViewChecksum;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class StateChecksumIT extends ResolverIT {

    @Autowired
    ObjectMapper json;

    @Test
    void checksumFollowsTheProfileAndChangesWithState() {
        put("/v1/streams/acme/sum/items/b", "{\"attributes\":{\"z\":1,\"a\":[1,2]}}");
        put("/v1/streams/acme/sum/items/a", "{\"attributes\":{\"name\":\"A\"}}");
        client("w").delete().uri("/v1/streams/acme/sum/items/a").retrieve().toBodilessEntity();
        put("/v1/streams/acme/sum/mappings/m", "{\"source\":\"colour\",\"target\":\"color\"}");

        JsonNode sum = get();
        assertThat(sum.path("profile").stringValue()).isEqualTo(AcceptedStateChecksum.PROFILE);
        assertThat(sum.path("position").longValue()).isEqualTo(4);

        Accumulator items = new Accumulator(Table.items);
        items.row("a", 2, true, "{}");
        items.row("b", 1, false, "{\"a\": [1, 2], \"z\": 1}");  // jsonb::text normalizes order and spacing
        assertThat(sum.path("tables").path("items").path("rows").longValue()).isEqualTo(2);
        assertThat(sum.path("tables").path("items").path("sha256").stringValue()).isEqualTo(items.finish().sha256());
        assertThat(sum.path("tables").path("mappings").path("rows").longValue()).isEqualTo(1);
        assertThat(sum.path("tables").path("policies").path("rows").longValue()).isZero();

        put("/v1/streams/acme/sum/items/b", "{\"attributes\":{\"z\":2}}");
        JsonNode after = get();
        assertThat(after.path("tables").path("items").path("sha256"))
                .isNotEqualTo(sum.path("tables").path("items").path("sha256"));
        assertThat(after.path("tables").path("mappings")).isEqualTo(sum.path("tables").path("mappings"));
    }

    /**
     * public-view-v1 from accepted state and the releases: an item stays public as the revision its latest PUBLIC
     * release names while it is updated, a PRIVATE release neither publishes nor hides, re-putting a release as
     * PRIVATE falls back to an older PUBLIC one, a deletion hides, a release naming an item twice counts the
     * highest revision, and a multi-change transaction that releases rev 1 and writes rev 2 publishes rev 1.
     */
    @Test
    void publicViewProfileFollowsTheLatestPublicReleaseOfEachItem() {
        String s = "/v1/streams/acme/view";
        put(s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":1}}");
        put(s + "/releases/spring", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"e\",\"revision\":1}]}");
        put(s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":2}}");
        put(s + "/items/e", "{\"attributes\":{\"name\":\"E\",\"v\":3}}");
        post(s + "/transactions", """
                {"changes":[{"op":"upsertItem","itemId":"f","attributes":{"name":"F","v":1}},
                            {"op":"putRelease","releaseId":"batch","visibility":"PUBLIC",
                             "items":[{"itemId":"f","revision":1}]},
                            {"op":"upsertItem","itemId":"f","attributes":{"name":"F","v":2}}]}
                """);
        put(s + "/items/g", "{\"attributes\":{\"name\":\"G\",\"v\":1}}");
        put(s + "/items/g", "{\"attributes\":{\"name\":\"G\",\"v\":2}}");
        put(s + "/releases/old", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"g\",\"revision\":1}]}");
        put(s + "/releases/new", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"g\",\"revision\":1},"
                + "{\"itemId\":\"g\",\"revision\":2}]}");
        put(s + "/releases/hidden", "{\"visibility\":\"PRIVATE\",\"items\":[{\"itemId\":\"g\",\"revision\":1}]}");
        put(s + "/items/h", "{\"attributes\":{\"name\":\"H\"}}");
        put(s + "/releases/gone", "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"h\",\"revision\":1}]}");
        client("w").delete().uri(s + "/items/h").retrieve().toBodilessEntity();
        put(s + "/items/p", "{\"attributes\":{\"name\":\"P\"}}");
        put(s + "/releases/preview", "{\"visibility\":\"PRIVATE\",\"items\":[{\"itemId\":\"p\",\"revision\":1}]}");

        Accumulator expected = new Accumulator(PublicViewChecksum.TABLE, PublicViewChecksum.COLUMNS);
        expected.row("e", 1, "spring", "{\"v\": 1, \"name\": \"E\"}");
        expected.row("f", 1, "batch", "{\"v\": 1, \"name\": \"F\"}");
        expected.row("g", 2, "new", "{\"v\": 2, \"name\": \"G\"}");
        JsonNode view = checksum("acme/view", "public-view-v1");
        assertThat(view.path("profile").stringValue()).isEqualTo("public-view-v1");
        assertThat(view.path("tables").path("publicItems").path("rows").longValue()).isEqualTo(3);
        assertThat(view.path("tables").path("publicItems").path("sha256").stringValue())
                .isEqualTo(expected.finish().sha256());

        // the newer release withdrawn: the older PUBLIC one shows g at revision 1 again
        put(s + "/releases/new", "{\"visibility\":\"PRIVATE\",\"items\":[{\"itemId\":\"g\",\"revision\":2}]}");
        Accumulator after = new Accumulator(PublicViewChecksum.TABLE, PublicViewChecksum.COLUMNS);
        after.row("e", 1, "spring", "{\"v\": 1, \"name\": \"E\"}");
        after.row("f", 1, "batch", "{\"v\": 1, \"name\": \"F\"}");
        after.row("g", 1, "old", "{\"v\": 1, \"name\": \"G\"}");
        assertThat(checksum("acme/view", "public-view-v1").path("tables").path("publicItems").path("sha256").stringValue())
                .isEqualTo(after.finish().sha256());
        assertThat(checksum("acme/view", null).path("profile").stringValue()).isEqualTo("accepted-state-v1");
        assertThat(checksum("acme/nothing", "public-view-v1").path("tables").path("publicItems").path("rows").longValue())
                .isZero();

        var bad = client("op").get().uri("/v1/streams/acme/view/state-checksum?profile=public-view-v9").retrieve()
                .toEntity(String.class);
        assertThat(bad.getStatusCode().value()).isEqualTo(400);
        assertThat(json.readTree(bad.getBody()).path("code").stringValue()).isEqualTo("INVALID_BODY");
    }

    private JsonNode get() {
        return checksum("acme/sum", null);
    }

    private JsonNode checksum(String stream, String profile) {
        return json.readTree(client("op").get().uri("/v1/streams/" + stream + "/state-checksum"
                + (profile == null ? "" : "?profile=" + profile)).retrieve().body(String.class));
    }

    private void post(String path, String body) {
        var r = client("w").post().uri(path).header("Content-Type", "application/json").body(body).retrieve()
                .toEntity(String.class);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
    }

    private void put(String path, String body) {
        var r = client("w").put().uri(path).header("Content-Type", "application/json").body(body).retrieve()
                .toEntity(String.class);
        assertThat(r.getStatusCode().value()).as("%s %s", path, r.getBody()).isEqualTo(200);
    }
}
