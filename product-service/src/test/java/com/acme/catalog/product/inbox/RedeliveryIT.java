package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;
import com.acme.catalog.product.support.ProductIT;
import com.acme.catalog.product.support.Projections;

import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * A position the generation already has is a duplicate only with the digest of the generation's chain there:
 * above the export position the inbox's digest, at it the digest the generation was loaded with, below it a digest
 * that the same delivery links up to that one. Anything else is 422 {@code CHAIN_BROKEN} and changes nothing.
 * The generation here stands for one loaded from an export at W = 6 and caught up to 10 (its inbox holds 7..10).
 */
class RedeliveryIT extends ProductIT {

    @Test
    void aRedeliveryWithAnotherDigestThanTheChainIsRefusedAtAndBelowTheExportPosition() {
        StreamId s = new StreamId("acme", "redelivered");
        List<Event> chain = new ChainWriter(s, 1, new Random(5)).appendAll(new CatalogHistory(new Random(6)).random(10));
        assertThat(outcomes(deliver("r", chain.stream().map(Event::delivered).toList()))).hasSize(10);
        Projections projections = new Projections(jdbc);
        long g = projections.servingGeneration(s);
        jdbc.sql("DELETE FROM inbox WHERE generation_id = ? AND position <= 6").params(g).update();
        jdbc.sql("UPDATE generation SET start_position = 6, start_digest = ? WHERE generation_id = ?")
                .params(chain.get(5).chainDigest(), g).update();
        var before = projections.dump(g);

        // above the export: the inbox's digest (as before this change)
        assertRefused(List.of(chain.get(8).deliveredWithBadDigest()));
        // at the export position: the digest the generation was loaded with
        assertRefused(List.of(chain.get(5).deliveredWithBadDigest()));
        // below it, linked up to W by the delivery itself: 4 and 5 with the right digests, 4 tampered
        assertThat(outcomes(deliver("r", List.of(chain.get(3).delivered(), chain.get(4).delivered(),
                chain.get(5).delivered(), chain.get(6).delivered())))).containsOnly("DUPLICATE");
        assertRefused(List.of(chain.get(3).deliveredWithBadDigest(), chain.get(4).delivered(),
                chain.get(5).delivered()));
        assertRefused(List.of(chain.get(4).deliveredWithBadDigest(), chain.get(5).delivered()));
        // below it and not linked to it: nothing of the chain before the export is kept, so it cannot be checked
        assertThat(outcomes(deliver("r", List.of(chain.get(2).deliveredWithBadDigest())))).containsExactly("DUPLICATE");
        assertThat(projections.dump(g)).isEqualTo(before);
    }

    private void assertRefused(List<String> delivery) {
        ResponseEntity<JsonNode> r = deliver("r", delivery);
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(422);
        assertThat(r.getBody().get("code").stringValue()).isEqualTo("CHAIN_BROKEN");
    }

    private static List<String> outcomes(ResponseEntity<JsonNode> r) {
        assertThat(r.getStatusCode().value()).as("%s", r.getBody()).isEqualTo(200);
        return r.getBody().get("results").valueStream().map(n -> n.get("outcome").stringValue()).toList();
    }
}
