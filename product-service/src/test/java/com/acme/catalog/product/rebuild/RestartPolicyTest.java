package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.sql.SQLException;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.product.resolver.ResolverClient;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.web.client.ResourceAccessException;

/** Which failures a rebuild retries, which end it FAILED at once, and the code and sentence each one shows. */
class RestartPolicyTest {

    @Test
    void anEpochMismatchFromTheResolverIsAnEpochMoveNotARefusal() {
        RestartPolicy.Failure f = RestartPolicy.classify(new ResolverClient.RefusedException("consumer registration "
                + "answered 409: {\"code\":\"EPOCH_MISMATCH\",\"detail\":\"epoch 1 is not current\"}", 409,
                ProblemCode.EPOCH_MISMATCH));
        assertThat(f.kind()).isEqualTo(RestartPolicy.Kind.SIGNAL);
        assertThat(f.epochMoved()).isTrue();
        assertThat(f.text()).isEqualTo("EPOCH_CHANGED: the resolver answered the consumer registration with 409 "
                + "EPOCH_MISMATCH (the stream's epoch moved past the attempt's); restarting at the new epoch");
        // another 409 stays a refusal; a 410 is a signal but says nothing about which epoch is current
        RestartPolicy.Failure conflict = RestartPolicy.classify(new ResolverClient.RefusedException("lease answered "
                + "409: {\"code\":\"REVISION_CONFLICT\"}", 409, ProblemCode.REVISION_CONFLICT));
        assertThat(conflict.kind()).isEqualTo(RestartPolicy.Kind.PERMANENT);
        assertThat(conflict.code()).isEqualTo("RESOLVER_REFUSED");
        assertThat(RestartPolicy.classify(new ResolverClient.GoneException("catch-up page after 3: 410 {}"))
                .epochMoved()).isFalse();
        assertThat(RestartPolicy.classify(new RestartRequired(RestartRequired.Reason.EPOCH_CHANGED_BEFORE_CUTOVER,
                "the current epoch is 2")).epochMoved()).isTrue();
        assertThat(RestartPolicy.classify(new RestartRequired(RestartRequired.Reason.EXPORT_ABORTED, "aborted"))
                .epochMoved()).isFalse();
    }

    @Test
    void failuresThatSayNothingAboutTheDataAreRetried() {
        assertTransient(new ResolverClient.UnavailableException("export answered 503: {}"), "RESOLVER_UNAVAILABLE");
        assertTransient(new ResolverClient.UnavailableException("export status answered 500: {}"),
                "RESOLVER_UNAVAILABLE");
        assertTransient(new ResourceAccessException("I/O error on GET request",
                new ConnectException("Connection refused")), "RESOLVER_UNREACHABLE");
        assertTransient(new IllegalStateException("page", new IOException("reset")), "IO_FAILED");
        // pg_terminate_backend: 57P01 admin shutdown; a restart: connection failure (08006)
        assertTransient(new UncategorizedSQLException("apply", "SQL",
                new SQLException("terminating connection due to administrator command", "57P01")),
                "DATABASE_UNAVAILABLE");
        assertTransient(new UncategorizedSQLException("apply", "SQL", new SQLException("connection lost", "08006")),
                "DATABASE_UNAVAILABLE");
        assertTransient(new DataAccessResourceFailureException("connection lost"), "DATABASE_UNAVAILABLE");
        assertTransient(new ApiException(ProblemCode.MAINTENANCE, "paused"), "MAINTENANCE");
    }

    @Test
    void restartSignalsCarryTheirCodeAndSentence() {
        RestartRequired aborted = new RestartRequired(RestartRequired.Reason.EXPORT_ABORTED,
                "export e-1 was ABORTED: lease expired");
        RestartPolicy.Failure f = RestartPolicy.classify(aborted);
        assertThat(f.kind()).isEqualTo(RestartPolicy.Kind.SIGNAL);
        assertThat(f.text()).isEqualTo("EXPORT_ABORTED: export e-1 was ABORTED: lease expired");

        RestartPolicy.Failure gone = RestartPolicy.classify(new ResolverClient.GoneException(
                "catch-up page after 4: 410 {\"type\":\"about:blank\",\"code\":\"LEASE_EXPIRED\"}",
                ProblemCode.LEASE_EXPIRED));
        assertThat(gone.kind()).isEqualTo(RestartPolicy.Kind.SIGNAL);
        assertThat(gone.text()).startsWith("RESOLVER_GONE: the resolver answered the catch-up page after 4 with 410 "
                + "LEASE_EXPIRED");
        // an export FAILED without "permanent": answered with a new export
        assertThat(RestartPolicy.classify(new RestartRequired(RestartRequired.Reason.EXPORT_FAILED, "export e-2 "
                + "is FAILED")).kind()).isEqualTo(RestartPolicy.Kind.SIGNAL);
    }

    @Test
    void failuresAboutTheDataOrRefusalsAreFailedAtOnce() {
        assertPermanent(new CorruptExportException("checksum of items.csv.gz differs"), "CORRUPT_EXPORT");
        assertPermanent(new IllegalStateException("load", new CorruptExportException("checksum differs")),
                "CORRUPT_EXPORT");
        assertPermanent(new ApiException(ProblemCode.CHAIN_BROKEN, "position 5 does not chain"), "CHAIN_BROKEN");
        assertPermanent(new ResolverClient.RefusedException("lease answered 409: {}", 409), "RESOLVER_REFUSED");
        assertPermanent(new PermanentFailure("EXPORT_FAILED_PERMANENTLY", "export e-3 is FAILED"),
                "EXPORT_FAILED_PERMANENTLY");
        assertPermanent(new UncategorizedSQLException("apply", "SQL", new SQLException("duplicate key", "23505")),
                "REBUILD_FAILED");
        assertPermanent(new IllegalStateException("2 event(s) at or below the target 3 are parked"),
                "REBUILD_FAILED");
    }

    @Test
    void noReasonCarriesAJavaClassName() {
        Throwable[] failures = {new ResourceAccessException("I/O error: java.net.ConnectException: refused",
                new ConnectException()), new IllegalStateException(new java.net.SocketTimeoutException("Read timed "
                + "out")), new NullPointerException(), new RuntimeException(new IllegalArgumentException("bad")),
                new UncategorizedSQLException("apply", "SQL", new SQLException(
                        "org.postgresql.util.PSQLException: An I/O error occurred", "08006"))};
        for (Throwable t : failures) {
            String text = RestartPolicy.classify(t).text();
            assertThat(text).as("%s", t).doesNotContain("Exception").doesNotContain("java.")
                    .doesNotContain("org.postgresql").matches("[A-Z][A-Z0-9_]+: .+");
        }
    }

    private static void assertTransient(Throwable t, String code) {
        RestartPolicy.Failure f = RestartPolicy.classify(t);
        assertThat(f.kind()).as("%s", t).isEqualTo(RestartPolicy.Kind.TRANSIENT);
        assertThat(f.code()).as("%s", t).isEqualTo(code);
        assertThat(f.retried()).isTrue();
    }

    private static void assertPermanent(Throwable t, String code) {
        RestartPolicy.Failure f = RestartPolicy.classify(t);
        assertThat(f.kind()).as("%s", t).isEqualTo(RestartPolicy.Kind.PERMANENT);
        assertThat(f.code()).as("%s", t).isEqualTo(code);
        assertThat(f.retried()).isFalse();
    }
}
