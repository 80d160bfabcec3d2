package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.sql.SQLException;

import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.product.resolver.ResolverClient;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.web.client.ResourceAccessException;

class RestartPolicyTest {

    @Test
    void passingFailuresRestartTheRebuild() {
        assertThat(RestartPolicy.restartReason(new ResolverClient.GoneException("lease expired"))).contains("lease expired");
        assertThat(RestartPolicy.restartReason(new ResolverClient.UnavailableException("export answered 503")))
                .hasValueSatisfying(w -> assertThat(w).startsWith("the resolver was unreachable"));
        assertThat(RestartPolicy.restartReason(new ResourceAccessException("I/O error", new ConnectException("refused"))))
                .hasValueSatisfying(w -> assertThat(w).startsWith("the resolver was unreachable"));
        assertThat(RestartPolicy.restartReason(new IllegalStateException("page", new IOException("reset"))))
                .isPresent();
        // pg_terminate_backend: 57P01 admin shutdown; a restart: connection failure (08006)
        assertThat(RestartPolicy.restartReason(new UncategorizedSQLException("apply", "SQL",
                new SQLException("terminating connection due to administrator command", "57P01"))))
                .hasValueSatisfying(w -> assertThat(w).startsWith("the product's database connection failed"));
        assertThat(RestartPolicy.restartReason(new DataAccessResourceFailureException("connection lost"))).isPresent();
    }

    @Test
    void theRebuildsOwnSignalRestartsItWithItsCodeAndSentence() {
        RestartRequired aborted = new RestartRequired(RestartRequired.Reason.EXPORT_ABORTED,
                "export e-1 was ABORTED: lease expired");

        assertThat(RestartPolicy.restartSignal(aborted)).contains("EXPORT_ABORTED: export e-1 was ABORTED: lease expired");
        assertThat(RestartPolicy.restartReason(aborted)).isEqualTo(RestartPolicy.restartSignal(aborted));
        assertThat(RestartPolicy.restartSignal(new ResolverClient.GoneException("events: 410 {}")))
                .contains("events: 410 {}");
        // a passing failure restarts too, but is not a signal: it is weighed after a stop or a lost worker lease
        assertThat(RestartPolicy.restartSignal(new ResolverClient.UnavailableException("export answered 503")))
                .isEmpty();
        assertThat(RestartPolicy.restartSignal(new IllegalStateException("2 event(s) at or below the target 3 are parked")))
                .isEmpty();
    }

    @Test
    void failuresAboutTheDataLeaveItFailed() {
        assertThat(RestartPolicy.restartReason(new IllegalStateException("export is FAILED: disk full"))).isEmpty();
        assertThat(RestartPolicy.restartReason(new IllegalStateException("lease answered 409: {}"))).isEmpty();
        assertThat(RestartPolicy.restartReason(new UncategorizedSQLException("apply", "SQL",
                new SQLException("duplicate key", "23505")))).isEmpty();
        assertThat(RestartPolicy.restartReason(new CorruptExportException("checksum of items.csv.gz differs")))
                .isEmpty();
        assertThat(RestartPolicy.restartReason(new IllegalStateException("load",
                new CorruptExportException("checksum of items.csv.gz differs")))).isEmpty();
    }
}
