package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;

/**
 * {@code GET …/chain-digest?position=}: the digest the resolver holds at any retained position (and at P once its
 * row is pruned), the head with it; beyond the head 422, below P 410, another epoch 410, bad input 400, and only
 * operator or consumer tokens of the tenant.
 */
class ChainDigestIT extends AbstractExportIT {

    @Test
    void answersTheDigestAtAnyKnownPositionAndRefusesTheRest() {
        StreamId s = new StreamId("acme", "digests");
        writeItems(s, 12);
        String base = "/v1/streams/acme/digests/chain-digest?position=";
        for (long p : new long[] {1, 5, 12}) {
            Response r = get(base + p, "c");
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.text("chainDigest")).isEqualTo(digestAt(s, p));
            assertThat(r.number("position")).isEqualTo(p);
            assertThat(r.number("head")).isEqualTo(12);
            assertThat(r.number("epoch")).isEqualTo(1);
        }
        assertThat(get(base + "0", "op").text("chainDigest")).isEqualTo(ChainDigest.ZERO);
        assertThat(get(base + "3&epoch=1", "op").text("chainDigest")).isEqualTo(digestAt(s, 3));

        Response ahead = get(base + "13", "op");
        assertThat(ahead.status()).isEqualTo(422);
        assertThat(ahead.code()).isEqualTo("POSITION_AHEAD");
        Response otherEpoch = get(base + "3&epoch=2", "op");
        assertThat(otherEpoch.status()).isEqualTo(410);
        assertThat(otherEpoch.code()).isEqualTo("EPOCH_CHANGED");

        String atSeven = digestAt(s, 7);
        publishThrough(s, 7);
        assertThat(prune(s)).isEqualTo(7);
        assertThat(get(base + "7", "op").text("chainDigest")).as("P itself, its row pruned").isEqualTo(atSeven);
        Response stale = get(base + "6", "op");
        assertThat(stale.status()).isEqualTo(410);
        assertThat(stale.code()).isEqualTo("CURSOR_STALE");

        for (String bad : new String[] {"", "-1", "x", "1e3"}) {
            assertThat(get(base + bad, "op").code()).as("position=%s", bad).isEqualTo("INVALID_BODY");
        }
        assertThat(get("/v1/streams/acme/digests/chain-digest", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get("/v1/streams/acme/digests/chain-digest?position=1&epoch=0", "op").code())
                .isEqualTo("INVALID_BODY");
        assertThat(get("/v1/streams/Acme/digests/chain-digest?position=1", "op").code()).isEqualTo("INVALID_ID");
        assertThat(get(base + "1", null).status()).isEqualTo(401);
        assertThat(get(base + "1", "w").status()).isEqualTo(403);
        assertThat(get(base + "1", "r").status()).isEqualTo(403);
        assertThat(get("/v1/streams/globex/digests/chain-digest?position=0", "c-acme").status()).isEqualTo(403);
    }

    private String digestAt(StreamId s, long position) {
        return jdbc.sql("SELECT chain_digest FROM outbox WHERE tenant = ? AND catalog = ? AND epoch = 1 "
                + "AND position = ?").params(s.tenant(), s.catalog(), position).query(String.class).single();
    }
}
