package com.acme.catalog.resolver.idempotency;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Deletes idempotency keys older than the window, oldest first, a batch per statement (each its own transaction, so
 * a large backlog never holds locks long or bloats one transaction), until a batch comes back short. Age is database
 * time ({@code now()}), as the keys' {@code created_at} is. Counts what it deleted in
 * {@code resolver_idempotency_keys_pruned_total}.
 */
@Component
public class KeyPruner {

    /**
     * One batch: the oldest keys past the window, locked with SKIP LOCKED so two instances' pruners never wait for
     * each other; a key a write holds (it is being inserted) is not past the window anyway.
     */
    private static final String SQL_PRUNE_BATCH = """
            DELETE FROM idempotency_key k
             USING (SELECT tenant, catalog, identity, scope, idempotency_key FROM idempotency_key
                     WHERE created_at < now() - ?::interval
                     ORDER BY created_at
                     LIMIT ?
                       FOR UPDATE SKIP LOCKED) old
             WHERE k.tenant = old.tenant AND k.catalog = old.catalog AND k.identity = old.identity
               AND k.scope = old.scope AND k.idempotency_key = old.idempotency_key
            """;

    private final JdbcClient jdbc;
    private final IdempotencyProperties properties;
    private final Counter pruned;

    KeyPruner(JdbcClient jdbc, IdempotencyProperties properties, MeterRegistry registry) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.pruned = Counter.builder("resolver.idempotency.keys.pruned")
                .description("idempotency keys deleted after resolver.idempotency.window").register(registry);
    }

    /**
     * Deletes every key older than the window, in batches.
     *
     * @return how many keys were deleted
     */
    public long prune() {
        long total = 0;
        int deleted;
        do {
            deleted = jdbc.sql(SQL_PRUNE_BATCH)
                    .params(properties.window().toMillis() + " milliseconds", properties.batchSize()).update();
            pruned.increment(deleted);
            total += deleted;
        } while (deleted == properties.batchSize() && !Thread.currentThread().isInterrupted());
        return total;
    }
}
