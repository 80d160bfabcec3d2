package com.acme.catalog.resolver.export;

import java.io.IOException;
import java.util.List;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.resolver.export.ExportRepository.Retired;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Keeps the object store tidy: only the newest {@code export.keep} READY exports of a stream keep their objects,
 * and a RUNNING export whose instance stopped heartbeating is failed and its objects removed, by any instance.
 * Rows are marked first and objects deleted after, so no client is handed a manifest whose objects are going.
 */
@Component
class ExportHousekeeping {

    private static final Logger log = LoggerFactory.getLogger(ExportHousekeeping.class);

    private final ExportRepository exports;
    private final ObjectStore store;
    private final ExportProperties properties;

    ExportHousekeeping(ExportRepository exports, ObjectStore store, ExportProperties properties) {
        this.exports = exports;
        this.store = store;
        this.properties = properties;
    }

    /** Retires the stream's READY exports beyond the newest {@code export.keep} and deletes their objects. */
    void retireBeyondKept(StreamId s) {
        List<Retired> retired = exports.retireBeyond(s, properties.keep());
        for (Retired r : retired) {
            log.info("export {} of {} retired (export.keep={}); deleting its objects", r.exportId(), s,
                    properties.keep());
            deleteObjects(r.exportId(), r.objectPrefix());
        }
    }

    /** Fails every RUNNING export whose instance stopped heartbeating and deletes its objects ({@link ExportSweepScheduler}). */
    void failStaleExports() {
        for (Retired r : exports.failStale(properties.staleAfter())) {
            log.warn("export {} FAILED: its instance stopped heartbeating for {}; deleting its objects",
                    r.exportId(), properties.staleAfter());
            deleteObjects(r.exportId(), r.objectPrefix());
        }
    }

    /** Deletes every object under the export's prefix; a failure is logged, not thrown (the export has ended). */
    void deleteObjects(UUID exportId, String prefix) {
        try {
            for (String key : store.list(prefix)) {
                store.delete(key);
            }
        } catch (IOException | RuntimeException e) {
            log.error("export {}: could not delete objects under {} of {}: {}", exportId, prefix, store.describe(),
                    e.toString());
        }
    }
}
