package com.acme.catalog.resolver.retention;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.epoch.RollbackDetector;
import com.acme.catalog.resolver.retention.ConsumerRepository.ConsumerRegistration;
import com.acme.catalog.resolver.retention.RetentionRepository.StreamHead;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Consumer registration (under the retention lock, starting at P so a consumer never claims pruned events),
 * monotonic durable progress, and operator deregistration. A lagging consumer is never dropped here.
 */
@Service
class ConsumerRegistry {

    private final TransactionTemplate tx;
    private final RetentionRepository retention;
    private final ConsumerRepository consumers;
    private final RollbackDetector rollbacks;
    private final Subscriptions subscriptions;

    ConsumerRegistry(TransactionTemplate tx, RetentionRepository retention, ConsumerRepository consumers,
            RollbackDetector rollbacks, Subscriptions subscriptions) {
        this.subscriptions = subscriptions;
        this.tx = tx;
        this.retention = retention;
        this.consumers = consumers;
        this.rollbacks = rollbacks;
    }

    /**
     * Registers {@code consumerId} for (stream, epoch) at the current P, or, when it is registered for that
     * epoch already, keeps its durable position and replaces its delivery URL. A registration of an older epoch
     * moves to the new one at its P.
     */
    ConsumerRegistration register(String consumerId, StreamId s, long epoch, String deliveryUrl, Caller caller) {
        StreamHead head = retention.openHead(s);
        if (head.epoch() != epoch) {
            throw new ApiException(ProblemCode.EPOCH_MISMATCH,
                    "stream %s is in epoch %d, not %d".formatted(s, head.epoch(), epoch));
        }
        return tx.execute(status -> {
            long p = retention.lock(s, epoch);
            // under the lock: a registration committed by another token a moment ago is seen here, whatever its
            // epoch, so a consumer is never taken over by re-registering it
            ConsumerRegistration current = consumers.find(consumerId, s).orElse(null);
            if (current != null) {
                requireOwnership(caller, current);
            }
            if (current != null && current.epoch() == epoch) {
                consumers.updateDeliveryUrl(consumerId, s, epoch, deliveryUrl);
            } else {
                consumers.register(consumerId, s, epoch, p, deliveryUrl, caller.name());
            }
            consumers.wakeRelay(s, epoch);
            return consumers.find(consumerId, s).orElseThrow();
        });
    }

    /**
     * Raises the consumer's durable position to {@code position}; a lower one changes nothing. A position ahead of
     * the cursor is a rollback signal when the epoch has a cursor (the stream is then marked rolled back).
     *
     * @return the durable position after the report
     */
    long reportProgress(String consumerId, StreamId s, long epoch, long position, Caller caller) {
        ConsumerRegistration reg = registration(consumerId, s);
        requireOwnership(caller, reg);
        requireEpoch(reg, epoch);
        Optional<RetentionRepository.EpochCursor> epochCursor = retention.epochCursor(s, epoch);
        if (epochCursor.isPresent() && epochCursor.get().fenced()) {
            throw new ApiException(ProblemCode.EPOCH_MISMATCH, "epoch %d of %s was fenced by a rotation: its progress "
                    .formatted(epoch, s) + "is closed; register in the stream's current epoch");
        }
        long cursor = epochCursor.map(RetentionRepository.EpochCursor::position).orElse(0L);
        if (position > cursor) {
            // the consumer applied what this database no longer has: a rollback (docs/epochs.md)
            if (epochCursor.isPresent() && rollbacks.consumerAhead(s, epoch, position, consumerId)) {
                throw new ApiException(ProblemCode.HISTORY_ROLLED_BACK, "consumer %s reports position %d of %s epoch "
                        .formatted(consumerId, position, s) + epoch + ", ahead of the cursor " + cursor + ": the "
                        + "resolver's history was rolled back; writes and the relay are refused until an operator "
                        + "rotates the epoch");
            }
            throw new ApiException(ProblemCode.POSITION_AHEAD, "position %d is ahead of the cursor %d of %s epoch %d"
                    .formatted(position, cursor, s, epoch));
        }
        return consumers.progress(consumerId, s, epoch, position).orElseGet(() -> {
            // deregistered or moved to another epoch between the read and the update
            requireEpoch(registration(consumerId, s), epoch);
            throw new IllegalStateException("consumer " + consumerId + " changed during a progress report");
        });
    }

    /**
     * Removes the consumer's registrations (all, or one tenant's, or one stream's), so it no longer holds
     * retention, with its subscriptions (all of them, or the one to the named tenant).
     *
     * @return how many registrations and subscriptions were removed (at least one)
     */
    int deregister(String consumerId, String tenant, String catalog, Caller caller) {
        return tx.execute(status -> {
            // first, under the subscription lock: no stream opening in flight registers the consumer again
            int subscriptionsRemoved = subscriptions.unsubscribe(consumerId, tenant, catalog, caller);
            List<ConsumerRegistration> matching = consumers.findById(consumerId).stream()
                    .filter(r -> tenant == null || r.stream().tenant().equals(tenant))
                    .filter(r -> catalog == null || r.stream().catalog().equals(catalog))
                    .toList();
            if (matching.isEmpty() && subscriptionsRemoved == 0) {
                throw new ApiException(ProblemCode.NOT_FOUND, "consumer " + consumerId + " is not registered"
                        + (tenant == null ? "" : " for " + tenant + (catalog == null ? "" : "/" + catalog)));
            }
            for (ConsumerRegistration r : matching) {
                if (!caller.mayAccess(r.stream().tenant())) {
                    throw new ApiException(ProblemCode.FORBIDDEN, "consumer " + consumerId
                            + " is also registered for tenant " + r.stream().tenant() + ", which this token may not "
                            + "access; name a tenant to deregister only that part");
                }
            }
            return consumers.delete(consumerId, tenant, catalog) + subscriptionsRemoved;
        });
    }

    private ConsumerRegistration registration(String consumerId, StreamId s) {
        return consumers.find(consumerId, s).orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND,
                "consumer " + consumerId + " is not registered for " + s));
    }

    private static void requireEpoch(ConsumerRegistration reg, long epoch) {
        if (reg.epoch() != epoch) {
            throw new ApiException(ProblemCode.EPOCH_MISMATCH, "consumer %s is registered for epoch %d of %s, not %d"
                    .formatted(reg.consumerId(), reg.epoch(), reg.stream(), epoch));
        }
    }

    /** An operator may act for any consumer; a consumer token only for consumers its identity registered. */
    static void requireOwnership(Caller caller, ConsumerRegistration reg) {
        if (!caller.has(Role.OPERATOR) && !caller.name().equals(reg.registeredBy())) {
            throw new ApiException(ProblemCode.FORBIDDEN,
                    "consumer " + reg.consumerId() + " was registered by another token");
        }
    }
}
