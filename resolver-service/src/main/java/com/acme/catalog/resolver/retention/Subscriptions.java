package com.acme.catalog.resolver.retention;

import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.stream.StreamOpening;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Consumers subscribed by pattern ({@code tenant/*} or {@code *}): each is registered at durable position 0 of every
 * matching stream, those open when it subscribes and each stream opened later, in the transaction that opens the
 * stream (its first write, or a rotation's new epoch). So a subscriber holds retention of a new stream from its first
 * event on, with no per-stream configuration, and is re-registered at every new epoch.
 *
 * <p>Race: a subscription and a stream's opening exclude each other through the subscription registry's lock
 * ({@link SubscriptionRepository#lockExclusive} against {@link SubscriptionRepository#lockShared}), so whichever
 * commits second sees the other: no stream opened while a subscription registers goes without its registration.
 */
@Service
class Subscriptions implements StreamOpening {

    private static final Logger log = LoggerFactory.getLogger(Subscriptions.class);

    private final TransactionTemplate tx;
    private final SubscriptionRepository subscriptions;
    private final RetentionRepository retention;

    Subscriptions(TransactionTemplate tx, SubscriptionRepository subscriptions, RetentionRepository retention) {
        this.tx = tx;
        this.subscriptions = subscriptions;
        this.retention = retention;
    }

    /**
     * Registers the stream's subscribers at position 0 of {@code epoch}, under the stream's retention lock (the
     * pruner's), in the opening's transaction.
     */
    @Override
    public void opened(StreamId stream, long epoch) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a stream opens inside its first write's transaction");
        }
        retention.lock(stream, epoch);
        subscriptions.lockShared();
        int registered = subscriptions.registerOpened(stream, epoch);
        if (registered > 0) {
            log.debug("{}: opened in epoch {}, {} subscriber(s) registered at position 0", stream, epoch, registered);
        }
    }

    /**
     * Subscribes {@code consumerId} to every stream of {@code tenantPattern} (a tenant, or {@code *}): stores the
     * subscription and registers the consumer in each open matching stream (at 0 where it was not registered in the
     * stream's current epoch; an existing registration of that epoch keeps its progress and takes the URL).
     *
     * @return how many streams' registrations were made or updated
     * @throws ApiException 403 when another identity registered this consumer and the caller is not an operator
     */
    int subscribe(String consumerId, String tenantPattern, String deliveryUrl, Caller caller) {
        return tx.execute(status -> {
            subscriptions.lockExclusive();
            if (!caller.has(Role.OPERATOR) && !subscriptions.otherOwners(consumerId, caller.name()).isEmpty()) {
                throw new ApiException(ProblemCode.FORBIDDEN,
                        "consumer " + consumerId + " was registered by another token");
            }
            subscriptions.subscribe(consumerId, tenantPattern, deliveryUrl, caller.name());
            int streams = subscriptions.registerExisting(consumerId, tenantPattern, deliveryUrl, caller.name());
            subscriptions.wakeRelay();
            log.info("consumer {} subscribed to {}/* by {}: registered in {} open stream(s)", consumerId,
                    tenantPattern, caller.name(), streams);
            return streams;
        });
    }

    /**
     * Removes subscriptions as part of a deregistration, in the caller's transaction: all of the consumer's when
     * {@code tenant} is null, else the one to that tenant; none when only one catalog is deregistered.
     *
     * @return how many subscriptions were removed
     */
    int unsubscribe(String consumerId, String tenant, String catalog, Caller caller) {
        subscriptions.lockExclusive();
        if (catalog != null) {
            return 0;
        }
        List<String> held = subscriptions.subscriptions(consumerId);
        for (String pattern : held) {
            if ((tenant == null || tenant.equals(pattern)) && !caller.mayAccess(pattern)) {
                throw new ApiException(ProblemCode.FORBIDDEN, "consumer " + consumerId + " subscribes to "
                        + pattern + "/*, which this token may not access");
            }
        }
        return subscriptions.unsubscribe(consumerId, tenant);
    }
}
