package com.acme.catalog.product.rebuild;

import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.GenerationRepository;
import com.acme.catalog.product.recovery.WorkerLeases;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * At start: fails rebuilds a stopped process left unfinished and retires their shadow generations, then rebuilds
 * every stream of {@code PRODUCT_STREAMS} ({@code tenant/catalog,…}) that has no serving generation.
 */
@Component
class StartupRebuilds {

    private static final Logger log = LoggerFactory.getLogger(StartupRebuilds.class);

    private final RebuildService service;
    private final GenerationRepository generations;
    private final List<StreamId> streams;
    private final WorkerLeases leases;

    StartupRebuilds(RebuildService service, GenerationRepository generations, WorkerLeases leases,
            @Value("${product.streams:}") String streams) {
        this.service = service;
        this.leases = leases;
        this.generations = generations;
        this.streams = parse(streams);
    }

    @EventListener(ApplicationReadyEvent.class)
    void onReady() {
        for (StreamId s : service.unfinishedStreams()) {
            // acquiring the worker lease restarts what an older fence left unfinished
            leases.hold(s);
        }
        for (StreamId s : streams) {
            if (generations.serving(s).isEmpty() && leases.hold(s).isPresent()) {
                log.info("{}: no serving generation, rebuilding from an export (rebuild {})", s, service.start(s));
            }
        }
    }

    static List<StreamId> parse(String streams) {
        List<StreamId> out = new ArrayList<>();
        for (String part : streams.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int slash = p.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("PRODUCT_STREAMS entries are tenant/catalog, not '" + p + "'");
            }
            out.add(new StreamId(p.substring(0, slash), p.substring(slash + 1)));
        }
        return out;
    }
}
