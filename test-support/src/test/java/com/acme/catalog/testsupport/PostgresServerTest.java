package com.acme.catalog.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;

class PostgresServerTest {

    @Test
    void onlyAConnectionFailureMeansNothingAnswers() {
        // the driver's "connection refused" / "connect timed out"
        assertThat(PostgresServer.nothingAnswers(new SQLException("refused", "08001"))).isTrue();
        assertThat(PostgresServer.nothingAnswers(new SQLException("reset", "08006"))).isTrue();
        // a server that answered: bad password, no such database, no such role
        assertThat(PostgresServer.nothingAnswers(new SQLException("auth", "28P01"))).isFalse();
        assertThat(PostgresServer.nothingAnswers(new SQLException("no db", "3D000"))).isFalse();
        assertThat(PostgresServer.nothingAnswers(new SQLException("no role", "28000"))).isFalse();
        assertThat(PostgresServer.nothingAnswers(new SQLException("unknown"))).isFalse();
    }
}
