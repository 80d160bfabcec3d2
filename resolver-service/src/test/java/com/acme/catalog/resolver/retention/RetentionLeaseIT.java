package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/** Rebuild leases: pinned at P, renewable while alive, never revived, pins moved only between P and the cursor. */
class RetentionLeaseIT extends AbstractRetentionIT {

    @Autowired
    TransactionTemplate tx;

    @Test
    void leaseIsPinnedAtPrunedThroughAndHoldsPruningAtItsPinUntilReleased() {
        StreamId s = new StreamId("acme", "lease-pin");
        write(s, 10);
        publishThrough(s, 10);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(10);

        Response created = lease("op", s, 1, 300);
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.number("pin")).isEqualTo(10);
        UUID leaseId = UUID.fromString(created.text("leaseId"));

        write(s, 10);
        publishThrough(s, 20);
        assertThat(prune(s)).isZero();
        assertThat(outboxPositions(s)).first().isEqualTo(11L);

        Lease moved = retention.advancePin(leaseId, 15);
        assertThat(moved.pin()).isEqualTo(15);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(15);
        assertThat(outboxPositions(s)).first().isEqualTo(16L);

        assertThat(delete("/v1/retention/leases/" + leaseId, "op").status()).isEqualTo(204);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(20);
        assertThat(outboxPositions(s)).isEmpty();
        // the cursor read reports P through the PrunedThroughSource this package provides
        assertThat(get("/v1/streams/acme/lease-pin/cursor", "op").number("prunedThrough")).isEqualTo(20);
    }

    @Test
    void renewExtendsALiveLeaseButAnExpiredOneStaysExpired() throws Exception {
        StreamId s = new StreamId("acme", "lease-renew");
        write(s, 3);
        Lease live = retention.pinRetention(s, 1, Duration.ofSeconds(2), "renewer");
        Instant renewed = retention.renew(live.leaseId(), Duration.ofSeconds(120));
        assertThat(renewed).isAfter(live.expiresAt().plusSeconds(100));

        Lease shortLived = retention.pinRetention(s, 1, Duration.ofSeconds(1), "short");
        awaitExpiredInDatabase(shortLived.leaseId());

        Response renew = post("/v1/retention/leases/" + shortLived.leaseId() + "/renew", "op",
                Map.of("ttlSeconds", 600));
        assertThat(renew.status()).isEqualTo(410);
        assertThat(renew.code()).isEqualTo("LEASE_EXPIRED");
        assertThat(renew.contentType()).startsWith("application/problem+json");
        assertThatThrownBy(() -> retention.renew(shortLived.leaseId(), Duration.ofSeconds(60)))
                .isInstanceOf(LeaseExpiredException.class).hasMessageContaining(shortLived.leaseId().toString());
        assertThatThrownBy(() -> retention.requireLiveLease(shortLived.leaseId()))
                .isInstanceOf(LeaseExpiredException.class).hasMessageContaining("expired at");
        assertThatThrownBy(() -> retention.advancePin(shortLived.leaseId(), 3))
                .isInstanceOf(LeaseExpiredException.class);
        // still expired in the database: nothing above revived it
        assertThat(jdbc.sql("SELECT expires_at <= clock_timestamp() FROM retention_lease WHERE lease_id = ?")
                .params(shortLived.leaseId()).query(Boolean.class).single()).isTrue();
        assertThat(retention.requireLiveLease(live.leaseId()).pin()).isZero();
    }

    @Test
    void aReleasedLeaseIsGoneForEveryUseAndReleasingAgainChangesNothing() {
        StreamId s = new StreamId("acme", "lease-release");
        write(s, 2);
        Lease l = retention.pinRetention(s, 1, Duration.ofSeconds(300), "releaser");
        retention.release(l.leaseId());
        assertThat(delete("/v1/retention/leases/" + l.leaseId(), "op").status()).isEqualTo(204);

        Response renew = post("/v1/retention/leases/" + l.leaseId() + "/renew", "op", Map.of("ttlSeconds", 60));
        assertThat(renew.status()).isEqualTo(410);
        assertThat(renew.code()).isEqualTo("LEASE_EXPIRED");
        assertThatThrownBy(() -> retention.requireLiveLease(l.leaseId()))
                .isInstanceOf(LeaseExpiredException.class).hasMessageContaining("released");
        publishThrough(s, 2);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(2);
    }

    @Test
    void advancePinStaysBetweenPrunedThroughAndTheCursorAndNeverGoesDown() {
        StreamId s = new StreamId("acme", "lease-advance");
        write(s, 10);
        publishThrough(s, 4);
        prune(s);
        Lease l = retention.pinRetention(s, 1, Duration.ofSeconds(300), "exporter");
        assertThat(l.pin()).isEqualTo(4);

        assertApiError(() -> retention.advancePin(l.leaseId(), 11), ProblemCode.POSITION_AHEAD);
        assertThat(retention.advancePin(l.leaseId(), 8).pin()).isEqualTo(8);
        assertThat(retention.advancePin(l.leaseId(), 6).pin()).isEqualTo(8);
        assertThat(retention.advancePin(l.leaseId(), 10).pin()).isEqualTo(10);
        assertThat(retention.requireLiveLease(l.leaseId()).pin()).isEqualTo(10);

        // a second lease pinned at 4 lets nothing past 4; a request below P is stale
        Lease other = retention.pinRetention(s, 1, Duration.ofSeconds(300), "other");
        retention.release(other.leaseId());
        publishThrough(s, 10);
        prune(s);
        assertThat(retention.prunedThrough(s, 1)).isEqualTo(10);
        Lease late = retention.pinRetention(s, 1, Duration.ofSeconds(300), "late");
        assertThat(late.pin()).isEqualTo(10);
        write(s, 5);
        assertApiError(() -> retention.advancePin(late.leaseId(), 3), ProblemCode.CURSOR_STALE);
        assertThat(retention.requireLiveLease(late.leaseId()).pin()).isEqualTo(10);
    }

    @Test
    void advancePinAbortsWhenTheLeaseEpochWasFenced() {
        StreamId s = new StreamId("acme", "lease-fenced");
        write(s, 3);
        Lease l = retention.pinRetention(s, 1, Duration.ofSeconds(300), "exporter");
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = 'acme' AND catalog = 'lease-fenced'")
                .update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch) VALUES ('acme', 'lease-fenced', 2)").update();
        assertApiError(() -> retention.advancePin(l.leaseId(), 3), ProblemCode.EPOCH_CHANGED);
        assertApiError(() -> retention.pinRetention(s, 1, Duration.ofSeconds(60), "old"), ProblemCode.EPOCH_MISMATCH);
        assertThat(retention.pinRetention(s, 2, Duration.ofSeconds(60), "new").pin()).isZero();
    }

    @Test
    void pinningInsideAnOpenTransactionIsRefused() {
        StreamId s = new StreamId("acme", "lease-tx");
        assertThatThrownBy(() -> tx.executeWithoutResult(status ->
                retention.pinRetention(s, 1, Duration.ofSeconds(60), "in-tx")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside any transaction");
        assertThat(jdbc.sql("SELECT count(*) FROM retention_lease WHERE owner = 'in-tx'").query(Long.class).single()).isZero();
    }

    private void awaitExpiredInDatabase(UUID leaseId) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            boolean expired = jdbc.sql("SELECT expires_at <= clock_timestamp() FROM retention_lease WHERE lease_id = ?")
                    .params(leaseId).query(Boolean.class).single();
            if (expired) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("lease " + leaseId + " did not expire");
    }

    static void assertApiError(Runnable r, ProblemCode code) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
