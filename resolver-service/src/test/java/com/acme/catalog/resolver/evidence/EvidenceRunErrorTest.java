package com.acme.catalog.resolver.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;

/** An evidence run's {@code error} is a code and a sentence: never an exception's class name. */
class EvidenceRunErrorTest {

    @Test
    void anObjectStoreFailureIsCodedWithoutItsClassName() {
        String error = EvidenceRetentionJob.describe(new UncheckedIOException("deleting evidence/a/b failed",
                new ConnectException("java.net.ConnectException: Connection refused")));
        assertThat(error).startsWith("OBJECT_STORE_FAILED: ").contains("deleting evidence/a/b failed")
                .contains("Connection refused").doesNotContain("Exception").doesNotContain("java.");
        assertThat(EvidenceRetentionJob.describe(new IOException()))
                .isEqualTo("OBJECT_STORE_FAILED: reading or deleting an evidence object failed "
                        + "(no message; the resolver's log has the details)");
    }

    @Test
    void aLostDatabaseConnectionAndAnythingElseAreCoded() {
        String lost = EvidenceRetentionJob.describe(new DataAccessResourceFailureException("could not get a connection",
                new SQLTransientConnectionException("HikariPool-1 - Connection is not available", "08001")));
        assertThat(lost).startsWith("DATABASE_UNAVAILABLE: ").doesNotContain("Exception");
        assertThat(EvidenceRetentionJob.describe(new IllegalStateException("org.example.Thing: broken")))
                .isEqualTo("EVIDENCE_RETENTION_FAILED: broken");
    }
}
