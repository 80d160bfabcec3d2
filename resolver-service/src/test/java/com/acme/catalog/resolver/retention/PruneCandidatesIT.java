package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamEpoch;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * The periodic prune cycle asks one statement which (stream, epoch) pairs could prune now and prunes only those
 * (docs/streams.md, "Background work follows activity"). Seeded: streams in random retention states (published or
 * not, old or young batches, consumers behind or caught up, live or expired leases, already pruned) — the candidates
 * must be exactly the streams a prune batch advances, so the filter never holds back a stream the full walk would
 * prune, and a quiet or fully pruned stream costs the cycle nothing.
 */
@TestPropertySource(properties = {"retention.min-age=PT1H", "retention.prune.batch-size=5"})
class PruneCandidatesIT extends AbstractRetentionIT {

    static final Duration OLD = Duration.ofHours(2);
    static final Duration YOUNG = Duration.ofMinutes(5);

    @Autowired
    RetentionRepository repository;

    @Test
    void theCandidatesAreExactlyTheStreamsAPruneAdvances() {
        long seed = Long.getLong("test.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int i = 0; i < 40; i++) {
            arrange(new StreamId("cand", "s" + i), random);
        }
        Set<StreamId> candidates = new HashSet<>();
        for (StreamEpoch se : repository.pruneCandidates(Duration.ofHours(1))) {
            candidates.add(se.stream());
        }
        Set<StreamId> advanced = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            StreamId s = new StreamId("cand", "s" + i);
            if (pruner.prune(s, 1).pruned() > 0) {
                advanced.add(s);
            }
        }
        assertThat(candidates).as("seed %d", seed).isEqualTo(advanced);
        assertThat(advanced).as("seed %d: some prune, some do not", seed).isNotEmpty().hasSizeLessThan(40);
    }

    @Test
    void aFullyPrunedOrBlockedStreamIsNoCandidate() {
        StreamId pruned = new StreamId("cand", "pruned");
        write(pruned, 4);
        publishThrough(pruned, 4, OLD);
        StreamId young = new StreamId("cand", "young");
        write(young, 4);
        publishThrough(young, 4, YOUNG);
        StreamId unpublished = new StreamId("cand", "unpublished");
        write(unpublished, 4);
        StreamId behind = new StreamId("cand", "behind");
        write(behind, 4);
        publishThrough(behind, 4, OLD);
        consumer(behind, 0);
        StreamId pinned = new StreamId("cand", "pinned");
        write(pinned, 4);
        publishThrough(pinned, 4, OLD);
        lease(pinned, 0, Duration.ofHours(1));

        assertThat(names()).containsExactly("pruned");
        assertThat(pruner.prune(pruned, 1).pruned()).isEqualTo(4);
        assertThat(names()).as("pruned to its head").isEmpty();
    }

    private Set<String> names() {
        Set<String> out = new HashSet<>();
        repository.pruneCandidates(Duration.ofHours(1)).forEach(se -> out.add(se.stream().catalog()));
        return out;
    }

    private void arrange(StreamId s, Random random) {
        int n = 1 + random.nextInt(12);
        write(s, n);
        switch (random.nextInt(4)) {
            case 0 -> { } // nothing published
            case 1 -> publishThrough(s, 1 + random.nextInt(n), OLD);
            case 2 -> publishThrough(s, 1 + random.nextInt(n), YOUNG);
            default -> {
                int old = 1 + random.nextInt(n);
                publishThrough(s, old, OLD);
                publishThrough(s, old + random.nextInt(n - old + 1), YOUNG);
            }
        }
        if (random.nextBoolean()) {
            pruner.prune(s, 1); // some are pruned already, part way or to their head
        }
        if (random.nextInt(3) == 0) {
            consumer(s, random.nextInt(n + 1));
        }
        switch (random.nextInt(4)) {
            case 0 -> lease(s, random.nextInt(n + 1), Duration.ofHours(1));
            case 1 -> lease(s, 0, Duration.ofSeconds(-1)); // expired: holds nothing
            default -> { }
        }
    }

    private void consumer(StreamId s, long durable) {
        jdbc.sql("""
                INSERT INTO retention_consumer (consumer_id, tenant, catalog, epoch, durable_position, registered_by)
                VALUES ('reader', ?, ?, 1, ?, 'token-1')
                """).params(s.tenant(), s.catalog(), durable).update();
    }

    private void lease(StreamId s, long pin, Duration ttl) {
        jdbc.sql("""
                INSERT INTO retention_lease (lease_id, tenant, catalog, epoch, pin, owner, created_by, expires_at)
                VALUES (?, ?, ?, 1, ?, 'test', 'token-1', clock_timestamp() + make_interval(secs => ?))
                """).params(UUID.randomUUID(), s.tenant(), s.catalog(), pin, ttl.toSeconds()).update();
    }
}
