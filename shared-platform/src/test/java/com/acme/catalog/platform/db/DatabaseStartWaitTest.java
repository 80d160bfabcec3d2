package com.acme.catalog.platform.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The start-time wait for the database: it retries what waiting can fix (unreachable, shutting down, starting up),
 * stops at the first other answer, and gives up after its bound with a message naming the database. Time is fake:
 * each pause advances it.
 */
class DatabaseStartWaitTest {

    private static final DatabaseStartProperties THREE_MINUTES = new DatabaseStartProperties(Duration.ofMinutes(3),
            Duration.ofSeconds(2));

    private final FakeTicker ticker = new FakeTicker();

    @Test
    void aDatabaseThatRefusesThenStartsUpIsWaitedFor() {
        Flaky db = new Flaky(List.of("08001", "08001", "57P03", "57P01", "08006"));
        int attempts = new DatabaseStartWait(THREE_MINUTES, ticker).await("jdbc:postgresql://db/x", db);
        assertThat(attempts).isEqualTo(6);
        assertThat(db.calls).isEqualTo(6);
        assertThat(ticker.pauses).hasSize(5).allMatch(d -> d.equals(Duration.ofSeconds(2)));
    }

    @Test
    void aDatabaseThatNeverComesGivesUpAfterTheBoundNamingIt() {
        Flaky db = new Flaky(null);
        assertThatThrownBy(() -> new DatabaseStartWait(THREE_MINUTES, ticker).await("jdbc:postgresql://db:5432/x", db))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("database jdbc:postgresql://db:5432/x did not accept connections within PT3M")
                .hasMessageContaining("SQLState 08001")
                .hasMessageContaining("database.start.timeout")
                .hasCauseInstanceOf(SQLException.class);
        // attempts at 0, 2, …, 180 s; one more pause would pass 3 minutes
        assertThat(db.calls).isEqualTo(91);
        assertThat(ticker.now).isLessThanOrEqualTo(Duration.ofMinutes(3).toNanos());
    }

    @Test
    void anAnswerWaitingCannotFixEndsTheWaitAtOnce() {
        for (String state : List.of("28P01", "3D000", "42501")) {
            Flaky db = new Flaky(List.of(state, "08001"));
            assertThat(new DatabaseStartWait(THREE_MINUTES, ticker).await("db", db)).as(state).isEqualTo(1);
            assertThat(db.calls).as(state).isEqualTo(1);
        }
    }

    @Test
    void aZeroTimeoutMakesOneAttempt() {
        Flaky db = new Flaky(null);
        assertThatThrownBy(() -> new DatabaseStartWait(new DatabaseStartProperties(Duration.ZERO,
                Duration.ofSeconds(2)), ticker).await("db", db)).isInstanceOf(IllegalStateException.class);
        assertThat(db.calls).isEqualTo(1);
    }

    @Test
    void retryableStatesAreConnectionClassAndShuttingDownOrStartingUp() {
        assertThat(DatabaseStartWait.retryable("08001")).isTrue();
        assertThat(DatabaseStartWait.retryable("08006")).isTrue();
        assertThat(DatabaseStartWait.retryable("57P01")).isTrue();
        assertThat(DatabaseStartWait.retryable("57P02")).isTrue();
        assertThat(DatabaseStartWait.retryable("57P03")).isTrue();
        assertThat(DatabaseStartWait.retryable("57014")).as("query canceled").isFalse();
        assertThat(DatabaseStartWait.retryable("28P01")).isFalse();
        assertThat(DatabaseStartWait.retryable(null)).isFalse();
    }

    @Test
    void theSettingsDefaultToThreeMinutesEveryTwoSecondsAndRefuseAZeroInterval() {
        DatabaseStartProperties defaults = new Binder(new MapConfigurationPropertySource(Map.of()))
                .bindOrCreate("database.start", DatabaseStartProperties.class);
        assertThat(defaults).isEqualTo(THREE_MINUTES);
        DatabaseStartProperties set = new Binder(new MapConfigurationPropertySource(Map.of(
                "database.start.timeout", "30s", "database.start.retry-interval", "PT0.5S")))
                .bindOrCreate("database.start", DatabaseStartProperties.class);
        assertThat(set).isEqualTo(new DatabaseStartProperties(Duration.ofSeconds(30), Duration.ofMillis(500)));
        assertThatThrownBy(() -> new DatabaseStartProperties(Duration.ofMinutes(1), Duration.ZERO))
                .hasMessageContaining("database.start.retry-interval");
    }

    /** Fails with the given SQL states in turn, then succeeds; with null, fails with 08001 forever. */
    private static final class Flaky implements DatabaseStartWait.Attempt {
        private final List<String> states;
        int calls;

        Flaky(List<String> states) {
            this.states = states;
        }

        @Override
        public void connect() throws SQLException {
            calls++;
            if (states == null) {
                throw new SQLException("Connection to db:5432 refused.", "08001");
            }
            if (calls <= states.size()) {
                throw new SQLException("failure " + calls, states.get(calls - 1));
            }
        }
    }

    private static final class FakeTicker implements DatabaseStartWait.Ticker {
        long now;
        final List<Duration> pauses = new ArrayList<>();

        @Override
        public long nanos() {
            return now;
        }

        @Override
        public void sleep(Duration d) {
            pauses.add(d);
            now += d.toNanos();
        }
    }
}
