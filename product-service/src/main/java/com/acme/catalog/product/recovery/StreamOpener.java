package com.acme.catalog.product.recovery;

import java.util.List;
import java.util.Optional;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.retention.RetentionView;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.recovery.RecoveryWorker.Outcome;
import com.acme.catalog.product.resolver.ResolverClient;
import com.acme.catalog.product.streams.ProductStreamsProperties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Opens a stream the product should serve and does not (docs/streams.md): it costs what the stream holds. While the
 * resolver still retains the stream from position 1 (pruned-through 0), an empty generation at 0 of its epoch
 * starts serving and the next cycle catches it up from the retained events (the live apply, bounded pages; one
 * page for a small stream), with no export; a listed stream's consumer is registered first, so the relay
 * delivers what follows. A pruned stream is rebuilt from an export. A stream without any write yet waits for
 * its first delivery.
 */
@Component
class StreamOpener {

    private static final Logger log = LoggerFactory.getLogger(StreamOpener.class);

    private final ResolverClient resolver;
    private final GenerationRepository generations;
    private final RecoveryStatusRepository status;
    private final RecoveryRebuilds rebuilds;
    private final TransactionTemplate tx;
    private final List<StreamId> configured;

    StreamOpener(ResolverClient resolver, GenerationRepository generations, RecoveryStatusRepository status,
            RecoveryRebuilds rebuilds, TransactionTemplate tx, ProductStreamsProperties streams) {
        this.resolver = resolver;
        this.generations = generations;
        this.status = status;
        this.rebuilds = rebuilds;
        this.tx = tx;
        this.configured = streams.list();
    }

    Outcome open(StreamId s) {
        Optional<RetentionView> source = resolver.statusIfKnown(s);
        if (source.isEmpty()) {
            status.ok(s, null, null, false);
            return Outcome.IDLE;
        }
        RetentionView v = source.get();
        if (v.prunedThrough() > 0) {
            return rebuilds.start(s, "no serving generation, and the resolver pruned the stream through "
                    + v.prunedThrough());
        }
        if (configured.contains(s)) {
            resolver.registerConsumer(s, v.epoch());
        }
        tx.executeWithoutResult(t -> generations.startServingEmpty(s, v.epoch()));
        log.info("{}: opened at position 0 of epoch {} without an export; catching up {} retained event(s)", s,
                v.epoch(), v.cursor());
        return v.cursor() > 0 ? Outcome.MORE : Outcome.CURRENT;
    }
}
