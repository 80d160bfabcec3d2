package com.acme.catalog.product.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.resolver.ResolverClientProperties;
import com.acme.catalog.product.support.FakeResolver;
import com.acme.catalog.product.support.FakeResolver.Report;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The reporter against a fake resolver endpoint: monotonic, coalescing, retried with backoff. */
class ProgressReporterTest {

    private static final FakeResolver RESOLVER = FakeResolver.shared();

    private final StreamId stream = new StreamId("acme", "unit-" + System.nanoTime());
    private ProgressReporter reporter;

    @BeforeEach
    void setUp() {
        RESOLVER.reset();
        reporter = new ProgressReporter(client(), new SimpleMeterRegistry(), timings(0));
    }

    /** Backoff from 10 ms to 100 ms; reports of a stream at least {@code minIntervalMs} apart. */
    private static ProgressProperties timings(long minIntervalMs) {
        return new ProgressProperties(Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofMillis(minIntervalMs),
                Duration.ofMinutes(1));
    }

    /** The product's resolver client with a 2 s progress timeout, reporting as consumer-1 with bearer secret. */
    private static ResolverClient client() {
        return new ResolverClient(new ResolverClientProperties(RESOLVER.baseUrl(), "secret", "consumer-1",
                "http://localhost/unused", null, new ResolverClientProperties.ProgressCalls(Duration.ofMillis(2000))),
                JsonMapper.builder().build());
    }

    @AfterEach
    void tearDown() {
        reporter.destroy();
        RESOLVER.reset();
    }

    @Test
    void reportsWithBearerAndNeverGoesDown() {
        reporter.offer(stream, 1, 5);
        awaitReported(1, 5);
        reporter.offer(stream, 1, 3);
        reporter.offer(stream, 1, 5);
        reporter.offer(stream, 1, 6);
        awaitReported(1, 6);

        List<Report> reports = RESOLVER.reports(stream.tenant(), stream.catalog());
        assertThat(reports).extracting(Report::position).containsExactly(5L, 6L);
        assertThat(reports).allSatisfy(r -> {
            assertThat(r.authorization()).isEqualTo("Bearer secret");
            assertThat(r.consumerId()).isEqualTo("consumer-1");
            assertThat(r.epoch()).isEqualTo(1);
        });
    }

    @Test
    void aNewerEpochReplacesAndAnOlderOneIsDropped() {
        reporter.offer(stream, 1, 9);
        awaitReported(1, 9);
        reporter.offer(stream, 2, 1);
        awaitReported(2, 1);
        reporter.offer(stream, 1, 10);
        reporter.offer(stream, 2, 2);
        awaitReported(2, 2);

        assertThat(RESOLVER.reports(stream.tenant(), stream.catalog()))
                .extracting(r -> r.epoch() + ":" + r.position()).containsExactly("1:9", "2:1", "2:2");
    }

    @Test
    void offersMadeWhileAReportIsInFlightCoalesceIntoTheLatest() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        RESOLVER.onReport(r -> {
            entered.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        reporter.offer(stream, 1, 1);
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        for (long p = 2; p <= 50; p++) {
            reporter.offer(stream, 1, p);
        }
        release.countDown();
        awaitReported(1, 50);

        assertThat(RESOLVER.reports(stream.tenant(), stream.catalog())).extracting(Report::position)
                .containsExactly(1L, 50L);
    }

    @Test
    void failedReportsAreRetriedWithBackoffUntilTheyPass() {
        RESOLVER.failNext(4, 503);
        reporter.offer(stream, 1, 7);
        awaitReported(1, 7);

        List<Report> reports = RESOLVER.reports(stream.tenant(), stream.catalog());
        assertThat(reports).extracting(Report::answered).containsExactly(503, 503, 503, 503, 200);
        assertThat(reports).extracting(Report::position).containsOnly(7L);
        assertThat(reporter.reported(stream)).contains(new ProgressReporter.Progress(1, 7));
    }

    /** Each retry waits at least half the shared policy's pause after that many failures (10 ms doubling). */
    @Test
    void retriesWaitTheSharedBackoffPolicysJitteredPause() {
        RESOLVER.failNext(4, 503);
        reporter.offer(stream, 1, 8);
        awaitReported(1, 8);

        List<Report> reports = RESOLVER.reports(stream.tenant(), stream.catalog());
        assertThat(reports).hasSize(5);
        com.acme.catalog.platform.retry.BackoffPolicy policy = timings(0).backoff();
        for (int failures = 1; failures < reports.size(); failures++) {
            assertThat(reports.get(failures).nanos() - reports.get(failures - 1).nanos())
                    .as("the pause after %d failures", failures)
                    .isGreaterThanOrEqualTo(policy.pause(failures).toNanos() / 2);
        }
    }

    @Test
    void reportsOfAStreamAreAtLeastTheMinimumIntervalApartAndTheLastOfferIsReported() throws Exception {
        reporter.destroy();
        reporter = new ProgressReporter(client(), new SimpleMeterRegistry(), timings(300));
        reporter.offer(stream, 1, 1);
        awaitReported(1, 1); // the first report goes at once (and warms the client up)
        long started = System.nanoTime();
        for (long p = 2; p <= 40; p++) {
            reporter.offer(stream, 1, p);
            Thread.sleep(10);
        }
        awaitReported(1, 40);
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        List<Report> reports = RESOLVER.reports(stream.tenant(), stream.catalog());
        // 39 offers over ~400 ms, one report per 300 ms at most, ending with the last offer
        assertThat(reports.size()).as("%s", reports).isLessThanOrEqualTo(2 + (int) (tookMs / 300));
        assertThat(reports.get(reports.size() - 1).position()).isEqualTo(40);
        // (arrival times, after the warm-up report whose arrival is late by the cold client's first request)
        for (int i = 2; i < reports.size(); i++) {
            assertThat(reports.get(i).nanos() - reports.get(i - 1).nanos()).isGreaterThanOrEqualTo(250_000_000L);
        }
    }

    /** After a cutover, a refused offer of the old generation is not retried forever above the new position. */
    @Test
    void aRestartReplacesAnOfferTheResolverRefusesWithALowerPosition() {
        RESOLVER.refuseAbove(11, 422); // the resolver's cursor is at 11
        reporter.offer(stream, 1, 12);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> RESOLVER.reports(stream.tenant(), stream.catalog()).size() >= 2);
        reporter.restart(stream, 1, 10);
        awaitReported(1, 10);
        reporter.offer(stream, 1, 11);
        awaitReported(1, 11);
        assertThat(RESOLVER.reports(stream.tenant(), stream.catalog())).filteredOn(r -> r.position() == 12)
                .extracting(Report::answered).containsOnly(422);
    }

    private void awaitReported(long epoch, long position) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(reporter.reported(stream)).contains(new ProgressReporter.Progress(epoch, position)));
    }
}
