package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Consumer registration checks ownership under the retention lock. Another token's registration
 * of the same consumer id (from the previous epoch) commits while this one waits for the lock, after its
 * unlocked look found nothing: it must still be refused, not move that consumer to a URL of its choosing.
 */
class RegistrationOwnershipRaceIT extends AbstractRetentionIT {

    @Autowired
    DataSource dataSource;

    @Test
    void aRegistrationCommittedByAnotherTokenWhileThisOneWaitsForTheLockIsNotTakenOver() throws Exception {
        StreamId s = new StreamId("acme", "reg-race");
        write(s, 2);
        for (String step : new String[] {"{\"enabled\":true}", null, "{\"enabled\":false}"}) {
            Response r = step == null
                    ? post("/v1/epochs/acme/reg-race/rotate", "op", "{\"reason\":\"race test\"}")
                    : post("/v1/admin/maintenance", "op", step);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
        }
        // creates the retention row of epoch 2, so the lock below has a row to hold
        assertThat(lease("op", s, 2, 60).status()).isEqualTo(201);

        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement("SELECT pruned_through FROM stream_retention "
                    + "WHERE tenant = 'acme' AND catalog = 'reg-race' AND epoch = 2 FOR UPDATE")) {
                lock.executeQuery().close();
            }
            // another token's registration of the same id (epoch 1, before the rotation), not yet committed
            try (PreparedStatement insert = other.prepareStatement("""
                    INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, delivery_url,
                                                    registered_by)
                    VALUES ('shared-id', 'acme', 'reg-race', 1, 0, 'http://127.0.0.1:1/theirs', 'another-token')
                    """)) {
                insert.executeUpdate();
            }
            CompletableFuture<Response> mine = CompletableFuture.supplyAsync(() -> post("/v1/retention/consumers", "c",
                    Map.of("consumerId", "shared-id", "tenant", "acme", "catalog", "reg-race", "epoch", 2,
                            "deliveryUrl", "http://127.0.0.1:2/mine")));
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.sql("""
                    SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'
                       AND query LIKE '%stream_retention%'
                    """).query(Long.class).single() > 0);
            other.commit();
            Response r = mine.get();
            assertThat(r.status()).as(r.raw()).isEqualTo(403);
            assertThat(r.code()).isEqualTo("FORBIDDEN");
        }
        Map<String, Object> row = jdbc.sql("SELECT epoch, delivery_url, registered_by FROM retention_consumer "
                + "WHERE consumer_id = 'shared-id'").query().singleRow();
        assertThat(row).containsEntry("delivery_url", "http://127.0.0.1:1/theirs")
                .containsEntry("registered_by", "another-token").containsEntry("epoch", 1L);
    }
}
