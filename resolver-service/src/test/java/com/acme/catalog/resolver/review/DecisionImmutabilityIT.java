package com.acme.catalog.resolver.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.EvidenceIT;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Value;

/**
 * The database itself refuses to change or remove decisions, cases and what they cite: plain JDBC statements, on a
 * connection of their own as the service's database user, fail, and the rows stay as they were.
 */
class DecisionImmutabilityIT extends EvidenceIT {

    private static final StreamId S = new StreamId("acme", "immutable");

    @Value("${spring.datasource.url}")
    String url;
    @Value("${spring.datasource.username}")
    String username;
    @Value("${spring.datasource.password:}")
    String password;

    private static UUID decisionId;

    @BeforeEach
    void decideOnce() throws Exception {
        if (decisionId != null) {
            return;
        }
        UUID artifact = artifact("acme", "<p>immutable</p>");
        UUID caseId = openCase(S, claims(S, artifact, "sku-1", Map.of("name", "x")),
                "[{\"op\":\"upsertItem\",\"itemId\":\"sku-1\",\"attributes\":{\"name\":\"x\"}}]");
        Response r = decide(S, caseId, "ACCEPT", List.of());
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        decisionId = UUID.fromString(r.text("decisionId"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "UPDATE resolver.review_decision SET reason = 'rewritten'",
            "UPDATE resolver.review_decision SET decision = 'REJECT'",
            "DELETE FROM resolver.review_decision",
            "TRUNCATE resolver.review_decision CASCADE",
            "UPDATE resolver.review_case SET changes = '[]'",
            "DELETE FROM resolver.review_case_claim",
            "UPDATE resolver.decision_citation SET artifact_id = artifact_id",
            "DELETE FROM resolver.decision_revision",
            "TRUNCATE resolver.decision_citation"})
    void theDatabaseRefuses(String statement) throws Exception {
        Map<String, Object> before = decision();
        try (Connection c = DriverManager.getConnection(url, username, password); Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.execute(statement)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("immutable");
        }
        assertThat(decision()).isEqualTo(before);
        assertThat(jdbc.sql("SELECT count(*) FROM decision_citation").query(Long.class).single()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM decision_revision").query(Long.class).single()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM review_case_claim").query(Long.class).single()).isEqualTo(1);
    }

    private Map<String, Object> decision() {
        return jdbc.sql("SELECT decision_id, case_id, decision, reviewer, reason, epoch, first_position,"
                + " last_position, transaction_id FROM review_decision WHERE decision_id = ?").params(decisionId)
                .query().singleRow();
    }
}
