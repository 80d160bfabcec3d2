package com.acme.catalog.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;

/**
 * The embedded PostgreSQL the harness falls back to: started when nothing answers at the
 * configured URL, not when a server there refuses the login; the tools condition; the launcher bin/demo.sh runs.
 * Never touches the machine's shared server: every "configured URL" here is a closed port or an embedded server.
 */
class EmbeddedPostgresServerIT {

    /** Another embedded server, standing for a real one that answers. */
    private static EmbeddedPostgresServer answering;

    @BeforeAll
    static void startOne() throws Exception {
        assumeEmbeddedCanRun();
        answering = EmbeddedPostgresServer.start(0);
    }

    @AfterAll
    static void stop() throws Exception {
        if (answering != null) {
            answering.close();
        }
    }

    @Test
    void nothingAtTheConfiguredUrlStartsAnEmbeddedPostgres15() throws Exception {
        String closed = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/postgres";
        PostgresServer server = PostgresServer.resolve(Map.of("TEST_DATABASE_URL", closed)::get, () -> false);
        try {
            assertThat(server.embedded()).isTrue();
            assertThat(server.embeddedBecause()).contains("nothing answers at TEST_DATABASE_URL (" + closed + ")");
            try (Connection c = server.adminConnection(); Statement s = c.createStatement()) {
                assertThat(scalar(s, "SHOW server_version_num")).startsWith("15");
                // the CI server's locale: byte-order collation, UTF-8 character classes
                assertThat(scalar(s, "SELECT datcollate FROM pg_database WHERE datname = 'postgres'"))
                        .isEqualToIgnoringCase("C.UTF-8");
                s.execute("CREATE DATABASE t_embedded_it");
            }
            // a database of its own, as TestDatabase makes one per test class, reached at the URL handed out
            try (Connection c = connect(server.urlFor("t_embedded_it")); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (name text)");
                s.execute("INSERT INTO t VALUES ('Café')");
                assertThat(scalar(s, "SELECT upper(name) FROM t")).isEqualTo("CAFÉ");
            }
        } finally {
            server.stopEmbedded();
        }
        assertThatThrownBy(server::adminConnection).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(PostgresServer.nothingAnswers((SQLException) e)).isTrue());
    }

    @Test
    void aConfiguredServerThatAnswersIsUsedAsItIs() throws Exception {
        String url = answering.adminUrl();
        PostgresServer server = PostgresServer.resolve(Map.of("TEST_DATABASE_URL", url)::get, () -> false);
        assertThat(server.embedded()).isFalse();
        assertThat(server.describe()).isEqualTo(url);
        assertThat(NeedsPostgresTools.Condition.evaluate(server).isDisabled()).isFalse();
    }

    @Test
    void aConfiguredServerThatRefusesIsAnErrorAndStartsNothing() {
        // it answers, but the database does not exist: a mistake to report, not a reason to test elsewhere
        String url = answering.baseUrl() + "/no_such_database";
        assertThatThrownBy(() -> PostgresServer.resolve(Map.of("TEST_DATABASE_URL", url)::get, () -> false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered but refused")
                .hasMessageContaining("no_such_database");
    }

    @Test
    void classesThatNeedPostgresToolsSkipOnTheEmbeddedServerWithTheReason() throws Exception {
        String closed = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/postgres";
        PostgresServer server = PostgresServer.resolve(Map.of("TEST_DATABASE_URL", closed)::get, () -> false);
        try {
            ConditionEvaluationResult result = NeedsPostgresTools.Condition.evaluate(server);
            assertThat(result.isDisabled()).isTrue();
            assertThat(result.getReason()).get().asString()
                    .contains("pg_dump").contains("embedded PostgreSQL").contains(closed);
        } finally {
            server.stopEmbedded();
        }
    }

    @Test
    void theLauncherServesTheDatabasesAskedForUntilItIsStopped() throws Exception {
        Path dir = Files.createTempDirectory("epg-main-it");
        Path urlFile = dir.resolve("url");
        Process p = new ProcessBuilder(ServiceProcess.javaBin(), "-cp", System.getProperty("java.class.path"),
                EmbeddedPostgresMain.class.getName(), "--databases=resolver,product", "--url-file=" + urlFile)
                .redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!Files.exists(urlFile) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(urlFile).as(Files.readString(dir.resolve("out"))).exists();
            String base = Files.readString(urlFile).trim();
            assertThat(base).startsWith("jdbc:postgresql://127.0.0.1:");
            for (String db : List.of("resolver", "product")) {
                try (Connection c = connect(base + "/" + db); Statement s = c.createStatement()) {
                    assertThat(scalar(s, "SELECT current_database()")).isEqualTo(db);
                }
            }
            assertThat(Files.readString(dir.resolve("out"))).contains("embedded PostgreSQL 15.");
            p.destroy(); // SIGTERM, as bin/demo.sh stops it
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(urlFile).doesNotExist();
            assertThatThrownBy(() -> connect(base + "/postgres")).isInstanceOf(SQLException.class);
        } finally {
            p.destroyForcibly();
        }
    }

    /** As root the library runs PostgreSQL in a user namespace; where there is none, it cannot run here. */
    private static void assumeEmbeddedCanRun() throws Exception {
        if (!EmbeddedPostgresServer.isRoot()) {
            return;
        }
        boolean unshare;
        try {
            Process p = new ProcessBuilder("unshare", "-U", "true").redirectErrorStream(true).start();
            unshare = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            unshare = false;
        }
        Assumptions.assumeTrue(unshare, "skipped: running as root without `unshare -U`; PostgreSQL refuses root");
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Connection connect(String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        p.setProperty("connectTimeout", "5");
        return DriverManager.getConnection(url, p);
    }

    private static String scalar(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
