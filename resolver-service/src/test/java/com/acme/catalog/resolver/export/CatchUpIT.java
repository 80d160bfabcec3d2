package com.acme.catalog.resolver.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.export.EventPage;
import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * docs/design.md step 6: pages of retained events after W carry chain digests that verify from the export's digest at W
 * to the cursor's, whatever the page size; the lease keeps the pruner below its pin; a stale cursor, an ended
 * lease and another epoch are each 410 with their code.
 */
@TestPropertySource(properties = {"export.page.max-bytes=16KB", "export.page.max-limit=50",
        "export.page.default-limit=20"})
class CatchUpIT extends AbstractExportIT {

    @Test
    void pagesVerifyTheChainFromTheExportToTheHeadAcrossPageSizesWhileThePinHoldsThePruner() throws Exception {
        StreamId s = new StreamId("acme", "chain");
        writeItems(s, 30);
        publishThrough(s, 30);
        assertThat(prune(s)).as("nothing pins it yet").isEqualTo(30);

        UUID lease = lease(s, 1, 300);
        writeItems(s, 20);
        JsonNode done = awaitEnd(startExport("op", s, lease).text("exportId"));
        ExportManifest manifest = manifest(done.path("exportId").stringValue());
        long w = manifest.cursor();
        assertThat(w).isEqualTo(50);

        writeItems(s, 60);
        bigEvents(s, 3); // 3 events of ~10 KB: the byte cap ends pages early
        long head = 113;
        publishThrough(s, head);
        assertThat(prune(s)).as("the pin moved to W = 50 holds the pruner there").isEqualTo(w);
        assertThat(jdbc.sql("SELECT min(position) FROM outbox WHERE tenant = 'acme' AND catalog = 'chain'")
                .query(Long.class).single()).isEqualTo(w + 1);

        for (int size : new int[] {1, 7, 50, 500}) {
            List<Long> positions = new ArrayList<>();
            String digest = manifest.chainDigest();
            long after = w;
            int pages = 0;
            while (true) {
                Response page = events(s, after, lease, 1, size, "op");
                assertThat(page.status()).as(page.raw()).isEqualTo(200);
                JsonNode body = page.body();
                assertThat(body.path("chainDigestAfter").stringValue()).as("page after %d", after).isEqualTo(digest);
                assertThat(body.path("head").asLong()).isEqualTo(head);
                assertThat(body.path("epoch").asLong()).isEqualTo(1);
                assertThat(body.path("events").size()).isLessThanOrEqualTo(Math.min(size, 50));
                for (EventWire.Split split : EventPage.parse(page.raw()).verify(digest)) {
                    assertThat(ChainDigest.next(digest, split.wire())).isEqualTo(split.chainDigest());
                    digest = split.chainDigest();
                    positions.add(json.readTree(split.wire()).path("position").asLong());
                }
                assertThat(body.path("chainDigestThrough").stringValue()).isEqualTo(digest);
                long through = body.path("through").asLong();
                pages++;
                if (through == after) {
                    assertThat(body.path("events").size()).isZero();
                    break;
                }
                after = through;
            }
            assertThat(positions).as("page size %d", size).hasSize((int) (head - w)).isSorted()
                    .startsWith(w + 1).endsWith(head);
            assertThat(digest).isEqualTo(get("/v1/streams/acme/chain/cursor", "op").text("chainDigest"));
            if (size == 500) {
                assertThat(pages).as("limit capped at 50 and 16 KB pages").isGreaterThan(3);
            }
        }

        // a page whose text was altered in transit does not verify
        Response one = events(s, w, lease, 1, 3, "op");
        String tampered = one.raw().replaceFirst("\"n\":", "\"n\": ");
        assertThatThrownBy(() -> EventPage.parse(tampered).verify(manifest.chainDigest()))
                .isInstanceOf(ApiException.class).hasMessageContaining("does not follow");

        // below the pin is gone: 410 CURSOR_STALE; the release lets the pruner pass W
        Response stale = events(s, w - 1, lease, 1, 10, "op");
        assertThat(stale.status()).isEqualTo(410);
        assertThat(stale.code()).isEqualTo("CURSOR_STALE");
        assertThat(delete("/v1/retention/leases/" + lease, "op").status()).isEqualTo(204);
        Response released = events(s, w, lease, 1, 10, "op");
        assertThat(released.status()).isEqualTo(410);
        assertThat(released.code()).isEqualTo("LEASE_EXPIRED");
        assertThat(prune(s)).isEqualTo(head);
        UUID fresh = lease(s, 1, 300);
        assertThat(events(s, w, fresh, 1, 10, "op").code()).isEqualTo("CURSOR_STALE");
        // at P itself (row pruned) the digest is still known
        Response atP = events(s, head, fresh, 1, 10, "op");
        assertThat(atP.status()).as(atP.raw()).isEqualTo(200);
        assertThat(atP.body().path("chainDigestAfter").stringValue()).isEqualTo(digestOfCursor(s));
        assertThat(atP.body().path("through").asLong()).isEqualTo(head);
    }

    @Test
    void pageStartingAtPrunedThroughBelowTheHeadHasTheDigestOfThePrunedRow() {
        StreamId s = new StreamId("acme", "at-p");
        writeItems(s, 10);
        String digestAt10 = digestOfCursor(s);
        writeItems(s, 5);
        publishThrough(s, 10);
        assertThat(prune(s)).isEqualTo(10);
        UUID lease = lease(s, 1, 300);
        Response page = events(s, 10, lease, 1, 100, "op");
        assertThat(page.status()).as(page.raw()).isEqualTo(200);
        assertThat(page.body().path("chainDigestAfter").stringValue()).isEqualTo(digestAt10);
        assertThat(page.body().path("events").size()).isEqualTo(5);
        Response empty = events(new StreamId("acme", "never-written"), 0, lease(new StreamId("acme",
                "never-written"), 1, 60), 1, 10, "op");
        assertThat(empty.status()).as(empty.raw()).isEqualTo(200);
        assertThat(empty.body().path("chainDigestAfter").stringValue()).isEqualTo(ChainDigest.ZERO);
        assertThat(empty.body().path("through").asLong()).isZero();
    }

    @Test
    void expiredLeaseWrongEpochAndPositionAheadAreRefused() {
        StreamId s = new StreamId("acme", "refusals");
        writeItems(s, 5);
        UUID lease = lease(s, 1, 300);
        UUID shortLease = lease(s, 1, 1);
        sleep(1200);
        Response expired = events(s, 0, shortLease, 1, 10, "op");
        assertThat(expired.status()).isEqualTo(410);
        assertThat(expired.code()).isEqualTo("LEASE_EXPIRED");
        assertThat(expired.contentType()).startsWith("application/problem+json");
        assertThat(events(s, 0, UUID.randomUUID(), 1, 10, "op").code()).isEqualTo("LEASE_EXPIRED");

        Response wrongEpoch = events(s, 0, lease, 2, 10, "op");
        assertThat(wrongEpoch.status()).isEqualTo(410);
        assertThat(wrongEpoch.code()).isEqualTo("EPOCH_CHANGED");

        Response ahead = events(s, 6, lease, 1, 10, "op");
        assertThat(ahead.status()).isEqualTo(422);
        assertThat(ahead.code()).isEqualTo("POSITION_AHEAD");

        // the stream moves to epoch 2 (what a restore does): the epoch-1 lease's history is over
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = 'acme' AND catalog = 'refusals'").update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES ('acme', 'refusals', 2)").update();
        Response fenced = events(s, 0, lease, 1, 10, "op");
        assertThat(fenced.status()).isEqualTo(410);
        assertThat(fenced.code()).isEqualTo("EPOCH_CHANGED");
    }

    @Test
    void accessAndParametersAreChecked() {
        StreamId s = new StreamId("acme", "params");
        writeItems(s, 3);
        UUID lease = lease(s, 1, 300);
        StreamId other = new StreamId("globex", "params");
        writeItems(other, 3);
        UUID otherLease = lease(other, 1, 300);
        String base = "/v1/exports/events?tenant=acme&catalog=params&lease_id=" + lease;

        assertThat(get(base + "&after=0&history_epoch=1", null).status()).isEqualTo(401);
        assertThat(get(base + "&after=0&history_epoch=1", "w").code()).isEqualTo("FORBIDDEN");
        assertThat(events(other, 0, otherLease, 1, 10, "c-acme").code()).isEqualTo("FORBIDDEN");
        // an operator's lease is the operator's: consumer tokens page only with leases they took (OwnershipIT)
        assertThat(events(s, 0, lease, 1, 10, "c-acme").code()).isEqualTo("FORBIDDEN");
        assertThat(events(s, 0, lease, 1, 10, "c").code()).isEqualTo("FORBIDDEN");
        UUID own = UUID.fromString(post("/v1/retention/leases", "c-acme", Map.of("tenant", "acme", "catalog",
                "params", "epoch", 1, "ttlSeconds", 300, "owner", "catch-up test")).text("leaseId"));
        assertThat(events(s, 0, own, 1, 10, "c-acme").status()).isEqualTo(200);
        assertThat(get(base + "&history_epoch=1", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get(base + "&after=-1&history_epoch=1", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get(base + "&after=x&history_epoch=1", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get(base + "&after=0&history_epoch=0", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get(base + "&after=0", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get(base + "&after=0&history_epoch=1&limit=0", "op").code()).isEqualTo("INVALID_BODY");
        assertThat(get("/v1/exports/events?tenant=acme&catalog=params&after=0&history_epoch=1&lease_id=x", "op")
                .code()).isEqualTo("INVALID_ID");
        assertThat(get("/v1/exports/events?tenant=Acme&catalog=params&after=0&history_epoch=1&lease_id=" + lease,
                "op").code()).isEqualTo("INVALID_ID");
        assertThat(events(s, 0, otherLease, 1, 10, "op").code()).isEqualTo("INVALID_BODY");
        Response page = events(s, 0, lease, 1, 2, "op");
        assertThat(page.body().path("through").asLong()).isEqualTo(2);
        assertThat(page.body().path("after").asLong()).isZero();
        assertThat(page.body().path("tenant").stringValue()).isEqualTo("acme");
        assertThat(page.body().path("catalog").stringValue()).isEqualTo("params");
    }

    private Response events(StreamId s, long after, UUID lease, long epoch, int limit, String token) {
        return get("/v1/exports/events?tenant=" + s.tenant() + "&catalog=" + s.catalog() + "&after=" + after
                + "&lease_id=" + lease + "&history_epoch=" + epoch + "&limit=" + limit, token);
    }

    private String digestOfCursor(StreamId s) {
        return jdbc.sql("SELECT chain_digest FROM stream_cursor WHERE tenant = ? AND catalog = ? AND fenced_at IS NULL")
                .params(s.tenant(), s.catalog()).query(String.class).single();
    }

    private void bigEvents(StreamId s, int n) {
        String big = "x".repeat(10_000);
        List<List<Change>> txs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            txs.add(List.of(ChangeParser.upsertItem("big-" + i,
                    json.readTree("{\"attributes\":{\"blob\":\"" + big + "\"}}"))));
        }
        writer.writeAll(s, txs);
    }
}
