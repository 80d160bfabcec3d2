package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;
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

    private JsonNode get() {
        return json.readTree(client("op").get().uri("/v1/streams/acme/sum/state-checksum").retrieve()
                .body(String.class));
    }

    private void put(String path, String body) {
        client("w").put().uri(path).header("Content-Type", "application/json").body(body).retrieve()
                .toBodilessEntity();
    }
}
