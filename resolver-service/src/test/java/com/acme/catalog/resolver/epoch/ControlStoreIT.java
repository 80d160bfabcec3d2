package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;

/**
 * The control store lives in its own database with its own migrations, while Boot's DataSource and Flyway keep
 * the resolver's; a stream's first write issues its epoch 1; high-water marks are recorded after commits and off
 * the write path; an upgraded database's streams get epoch 1 from the start-up check.
 */
class ControlStoreIT extends EpochIT {

    @Autowired
    Environment env;
    @Autowired
    RollbackDetector detector;

    @Test
    void theControlStoreHasItsOwnDatabaseAndMigrationsAndTheResolversStayWhereTheyWere() {
        List<String> controlTables = control().sql("SELECT table_name FROM information_schema.tables "
                + "WHERE table_schema = 'control' ORDER BY 1").query(String.class).list();
        assertThat(controlTables).contains("stream_epoch", "stream_high_water_mark", "flyway_schema_history");
        List<String> resolverTables = jdbc.sql("SELECT table_name FROM information_schema.tables "
                + "WHERE table_schema = 'resolver' ORDER BY 1").query(String.class).list();
        assertThat(resolverTables).contains("stream_cursor", "maintenance_mode", "flyway_schema_history")
                .doesNotContain("stream_epoch", "stream_high_water_mark");
        assertThat(jdbc.sql("SELECT max(version::int) FROM flyway_schema_history").query(Integer.class).single())
                .isGreaterThanOrEqualTo(13);
        assertThat(env.getProperty("control.datasource.url"))
                .isNotEqualTo(env.getProperty("spring.datasource.url"));
        assertThat(metric("resolver_control_store_up")).isEqualTo(1.0);
    }

    @Test
    void aStreamsFirstWriteIssuesItsFirstEpochWithAPermanentHistory() {
        assertThat(get("/v1/epochs/acme/first", "op").body().path("epoch").asLong()).isEqualTo(1);
        assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE catalog = 'first'").query(Long.class)
                .single()).as("a read of an unknown stream issues nothing").isZero();

        Response w = putItem("acme", "first", "a");
        assertThat(w.number("epoch")).isEqualTo(1);
        JsonNode status = get("/v1/epochs/acme/first", "op").body();
        assertThat(status.path("epoch").asLong()).isEqualTo(1);
        assertThat(status.path("issuedAt").isString()).isTrue();
        assertThat(status.path("history")).hasSize(1);
        assertThat(status.path("history").get(0).path("reason").stringValue()).isEqualTo("initial");
        assertThat(status.path("history").get(0).path("issuer").stringValue()).isEqualTo("resolver");

        // permanent: the store refuses to change or remove history, or to issue an epoch that is not above it
        assertRefused("UPDATE stream_epoch SET reason = 'x' WHERE catalog = 'first'");
        assertRefused("DELETE FROM stream_epoch WHERE catalog = 'first'");
        assertRefused("TRUNCATE stream_epoch");
        assertRefused("INSERT INTO stream_epoch (tenant, catalog, epoch, reason, issuer) "
                + "VALUES ('acme', 'first', 1, 'again', 'test')");
        // a consumer token reads it too (the product learns the current epoch here), a writer does not
        assertThat(get("/v1/epochs/acme/first", "c").status()).isEqualTo(200);
        assertThat(get("/v1/epochs/acme/first", "w").status()).isEqualTo(403);
        assertThat(get("/v1/epochs/acme/first", null).status()).isEqualTo(401);
        assertThat(get("/v1/epochs/ACME/first", "op").code()).isEqualTo("INVALID_ID");
    }

    @Test
    void highWaterMarksAreRecordedAfterCommitsAndNeverOnTheWritePath() throws Exception {
        putItem("acme", "hwm", "first");
        await().atMost(Duration.ofSeconds(10)).until(() -> highWaterMark("acme", "hwm", 1) == 1);

        // the stream's mark row is locked in the control store: writes do not wait for it, recording does
        DriverManagerDataSource ds = new DriverManagerDataSource(env.getProperty("control.datasource.url"),
                env.getProperty("control.datasource.username"), env.getProperty("control.datasource.password"));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1 FROM control.stream_high_water_mark WHERE catalog = 'hwm' FOR UPDATE");
            }
            long started = System.nanoTime();
            for (int i = 0; i < 30; i++) {
                assertThat(putItem("acme", "hwm", "item-" + i).status()).isEqualTo(200);
            }
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(millis).as("30 writes while the mark row was locked").isLessThan(15_000);
            Thread.sleep(1500); // more than a recording interval: the recorder is waiting for the lock
            assertThat(highWaterMark("acme", "hwm", 1)).isEqualTo(1);
            c.rollback();
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> highWaterMark("acme", "hwm", 1) == 31);
        assertThat(get("/v1/epochs/acme/hwm", "op").body().path("highWaterMark").asLong()).isEqualTo(31);
    }

    @Test
    void theStreamsOfAnUpgradedDatabaseAreInEpochOne() {
        // a stream written before the control store existed: its cursor row, no epoch anywhere
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch, position) VALUES ('acme', 'old', 1, 0)")
                .update();
        detector.check();
        assertThat(control().sql("SELECT epoch || ' ' || reason FROM stream_epoch WHERE catalog = 'old'")
                .query(String.class).list()).containsExactly("1 initial");
        assertThat(putItem("acme", "old", "x").number("epoch")).isEqualTo(1);
        // only a refused stream has the series
        assertThat(metric("resolver_history_rolled_back{application=\"resolver\",catalog=\"old\"")).isNull();
    }

    private void assertRefused(String sql) {
        try {
            control().sql(sql).update();
        } catch (RuntimeException expected) {
            return;
        }
        throw new AssertionError("the control store accepted: " + sql);
    }
}
