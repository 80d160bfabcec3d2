package com.acme.catalog.product.rebuild;

import java.io.IOException;

import com.acme.catalog.contracts.export.ExportManifest;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportView;
import com.acme.catalog.contracts.objectstore.ObjectStore;
import com.acme.catalog.product.epoch.OldEpochAudit;
import com.acme.catalog.product.epoch.StreamEpochs;
import com.acme.catalog.product.resolver.ResolverClient;

import org.springframework.stereotype.Component;

/**
 * docs/design.md steps 3 and 4 (one snapshot, publish export), the product's side: asks the resolver for an export
 * under the attempt's lease, polls it until READY and reads its manifest. An export the resolver ABORTED, or FAILED
 * without marking the failure {@code permanent}, or one of an epoch older than the current one (audited), restarts the
 * attempt from a new export ({@link RestartRequired}); one FAILED permanently, or of another stream or epoch, fails it
 * ({@link PermanentFailure}).
 */
@Component
class AwaitExportStep {

    /** A READY export: its manifest and where the manifest is stored. */
    record ReadyExport(String manifestKey, ExportManifest manifest) {
    }

    private final ResolverClient resolver;
    private final RebuildRepository rebuilds;
    private final ObjectStore store;
    private final StreamEpochs epochs;
    private final OldEpochAudit audit;
    private final RebuildProperties properties;

    AwaitExportStep(ResolverClient resolver, RebuildRepository rebuilds, ObjectStore store, StreamEpochs epochs,
            OldEpochAudit audit, RebuildProperties properties) {
        this.resolver = resolver;
        this.rebuilds = rebuilds;
        this.store = store;
        this.epochs = epochs;
        this.audit = audit;
        this.properties = properties;
    }

    ReadyExport awaitExport(Attempt a) throws IOException, InterruptedException {
        String exportId = resolver.requestExport(a.stream, a.leaseId);
        rebuilds.export(a.id, exportId);
        String manifestKey = awaitReady(a, exportId);
        ExportManifest manifest = ExportObjectReader.manifest(store, manifestKey);
        long current = epochs.current(a.stream);
        if (manifest.epoch() < current) {
            // an export of an epoch older than the current one is never loaded: audited, restarted
            audit.recordExport(a.stream, manifest.epoch(), manifest.cursor(), current);
            audit.count(a.stream, OldEpochAudit.Source.EXPORT, 1);
            throw new RestartRequired(RestartRequired.Reason.EXPORT_OF_OLD_EPOCH, "export " + exportId + " is of epoch "
                    + manifest.epoch() + ", older than the current epoch " + current);
        }
        if (!manifest.tenant().equals(a.stream.tenant()) || !manifest.catalog().equals(a.stream.catalog())
                || manifest.epoch() != a.epoch) {
            throw new PermanentFailure("EXPORT_MISMATCH", "export " + exportId + " is of " + manifest.tenant() + "/"
                    + manifest.catalog() + " epoch " + manifest.epoch() + ", not " + a.stream + " epoch " + a.epoch);
        }
        return new ReadyExport(manifestKey, manifest);
    }

    /** Polls the export until READY, its lease kept alive meanwhile; @return the manifest's key */
    private String awaitReady(Attempt a, String exportId) throws InterruptedException {
        while (true) {
            ExportView status = resolver.exportStatus(exportId);
            switch (status.status()) {
                case READY -> {
                    return status.manifestKey();
                }
                // the resolver aborts an export whose lease expired: same as a 410, restart from a new one
                case ABORTED -> throw new RestartRequired(RestartRequired.Reason.EXPORT_ABORTED, "export " + exportId
                        + " was ABORTED: " + status.error());
                // a failure about the data fails the rebuild; any other is answered with a new export (a restart)
                case FAILED -> throw status.failedPermanently()
                        ? new PermanentFailure("EXPORT_FAILED_PERMANENTLY", "export " + exportId + " is FAILED, "
                                + "about the stream's data: " + status.error())
                        : new RestartRequired(RestartRequired.Reason.EXPORT_FAILED, "export " + exportId
                                + " is FAILED: " + status.error() + "; a new export is asked for");
                case RUNNING -> {
                }
            }
            a.keeper.check();
            Thread.sleep(properties.pollInterval().toMillis());
        }
    }
}
