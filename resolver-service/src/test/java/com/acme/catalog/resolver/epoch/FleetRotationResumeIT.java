package com.acme.catalog.resolver.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.catalog.resolver.epoch.RotationJobRepository.Job;
import com.acme.catalog.resolver.epoch.RotationJobRunner.Kind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;

/**
 * A fleet rotation survives its driver: a driver that dies between the control store's commit and the database's
 * leaves epochs the next driver (another instance, after the claim expired) completes instead of issuing again, and
 * two drivers of one job never rotate a stream twice. This instance drives nothing by itself
 * ({@code rotation.enabled=false}); the tests drive it.
 */
@TestPropertySource(properties = {"rotation.enabled=false", "rotation.batch-size=4", "rotation.claim-ttl=PT2S",
        "retention.prune.enabled=false", "retention.status.enabled=false"})
class FleetRotationResumeIT extends EpochIT {

    @Autowired
    private StreamRotator rotator;
    @Autowired
    private RotationJobRunner runner;
    @Autowired
    private RotationJobRepository jobs;
    @Autowired
    private Environment env;

    @AfterEach
    void off() {
        rotator.afterIssue = () -> { };
        jobs.stopRunning("test over");
        maintenance(false);
    }

    @Test
    void aDriverThatDiesBetweenTheTwoDatabasesIsCompletedByAnotherInstanceWithoutASecondEpoch() throws Exception {
        List<String> catalogs = catalogs("crash", 10);
        Job job = startJob("crash");
        // the driver dies in its second batch, after the control store issued that batch's epochs
        AtomicInteger batches = new AtomicInteger();
        rotator.afterIssue = () -> {
            if (batches.incrementAndGet() == 2) {
                throw new SimulatedCrash();
            }
        };
        assertThat(jobs.claim(job.rotationId(), "dead-driver", Duration.ofSeconds(2))).isTrue();
        assertThatThrownBy(() -> runner.run(job, "dead-driver")).isInstanceOf(SimulatedCrash.class);
        rotator.afterIssue = () -> { };
        assertThat(jobs.job(job.rotationId()).orElseThrow().rotated()).isEqualTo(4);
        // 8 epochs issued in the store, 4 of them not opened in the database: those streams look rolled back
        assertThat(jobEpochs(job.rotationId())).isEqualTo(8);
        assertThat(jdbc.sql("SELECT count(*) FROM stream_cursor WHERE tenant = 'crash' AND epoch = 2")
                .query(Long.class).single()).isEqualTo(4);

        // a second instance (its own poller) resumes once the dead driver's claim expired
        try (SecondInstance second = new SecondInstance(env)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !jobs.job(job.rotationId()).orElseThrow().isRunning());
        }
        Job done = jobs.job(job.rotationId()).orElseThrow();
        assertThat(done.status()).isEqualTo("DONE");
        assertThat(done.rotated()).isEqualTo(10);
        assertThat(jobEpochs(job.rotationId())).isEqualTo(10);
        for (String c : catalogs) {
            assertThat(control().sql("SELECT string_agg(epoch::text, ',' ORDER BY epoch) FROM stream_epoch "
                    + "WHERE tenant = 'crash' AND catalog = ?").params(c).query(String.class).single()).as(c)
                    .isEqualTo("1,2");
            assertThat(jdbc.sql("SELECT epoch || ':' || position FROM stream_cursor WHERE tenant = 'crash' "
                    + "AND catalog = ? AND fenced_at IS NULL").params(c).query(String.class).single()).isEqualTo("2:0");
        }
    }

    @Test
    void aFailedBatchIsRetriedAndCompletesTheEpochsItIssued() {
        catalogs("retry", 6);
        Job job = startJob("retry");
        AtomicInteger batches = new AtomicInteger();
        rotator.afterIssue = () -> {
            if (batches.incrementAndGet() == 1) {
                throw new IllegalStateException("the database statement failed");
            }
        };
        assertThat(jobs.claim(job.rotationId(), "driver", Duration.ofSeconds(10))).isTrue();
        runner.run(job, "driver");
        Job done = jobs.job(job.rotationId()).orElseThrow();
        assertThat(done.status()).isEqualTo("DONE");
        assertThat(done.rotated()).isEqualTo(6);
        assertThat(jobEpochs(job.rotationId())).isEqualTo(6);
        assertThat(control().sql("SELECT max(epoch) FROM stream_epoch WHERE tenant = 'retry'").query(Long.class)
                .single()).isEqualTo(2);
    }

    /**
     * Two drivers of one job at once (a claim that expired while its driver still ran): the pending rows a batch
     * locks keep them apart. Without that lock both read the same streams and one of them fails or rotates again.
     */
    @Test
    void twoDriversOfOneJobNeverRotateAStreamTwice() throws Exception {
        List<String> catalogs = catalogs("race", 40);
        for (int round = 0; round < 3; round++) {
            Job job = startJob("race");
            assertThat(jobs.claim(job.rotationId(), "racer", Duration.ofSeconds(30))).isTrue();
            CyclicBarrier together = new CyclicBarrier(2);
            List<CompletableFuture<Integer>> drivers = new ArrayList<>();
            for (int d = 0; d < 2; d++) {
                drivers.add(CompletableFuture.supplyAsync(() -> {
                    int rotated = 0;
                    try {
                        together.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    while (true) {
                        RotationJobRunner.BatchResult r = runner.batch(job, "racer", 2);
                        if (r.kind() != Kind.ROTATED) {
                            return rotated;
                        }
                        rotated += r.streams();
                    }
                }));
            }
            int total = 0;
            for (CompletableFuture<Integer> f : drivers) {
                total += f.get();
            }
            assertThat(total).as("round %d", round).isEqualTo(catalogs.size());
            assertThat(jobs.finish(job.rotationId(), "racer")).contains("DONE");
            assertThat(jobEpochs(job.rotationId())).isEqualTo(catalogs.size());
            assertThat(jobs.job(job.rotationId()).orElseThrow().rotated()).isEqualTo(catalogs.size());
            long expected = round + 2;
            assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE tenant = 'race' AND epoch = ?")
                    .params(expected).query(Long.class).single()).isEqualTo(catalogs.size());
            assertThat(control().sql("SELECT count(*) FROM stream_epoch WHERE tenant = 'race' AND epoch > ?")
                    .params(expected).query(Long.class).single()).isZero();
            maintenance(false);
        }
    }

    private List<String> catalogs(String tenant, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String c = "c" + i;
            writeItems(tenant, c, 1);
            out.add(c);
        }
        return out;
    }

    private Job startJob(String tenant) {
        maintenance(true);
        Response r = post("/v1/epochs/rotations", "op", java.util.Map.of("reason", "restore", "scope",
                java.util.Map.of("tenant", tenant)));
        assertThat(r.status()).as(r.raw()).isEqualTo(202);
        return jobs.job(UUID.fromString(r.text("rotationId"))).orElseThrow();
    }

    private long jobEpochs(UUID rotationId) {
        return control().sql("SELECT count(*) FROM stream_epoch WHERE rotation_id = ?").params(rotationId)
                .query(Long.class).single();
    }

    /** A driver's death: an Error, which the runner does not catch. */
    static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("simulated crash between the control store's commit and the database's");
        }
    }
}
