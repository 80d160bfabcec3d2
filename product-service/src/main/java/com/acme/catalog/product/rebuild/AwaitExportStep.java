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

    ReadyExport awaitExport(Pinned p) throws IOException, InterruptedException {
        String exportId = resolver.requestExport(p.stream(), p.leaseId());
        rebuilds.export(p.id(), exportId);
        String manifestKey = awaitReady(p, exportId);
        ExportManifest manifest = ExportObjectReader.manifest(store, manifestKey);
        long current = epochs.current(p.stream());
        if (manifest.epoch() < current) {
            // an export of an epoch older than the current one is never loaded: audited, restarted
            audit.recordExport(p.stream(), manifest.epoch(), manifest.cursor(), current);
            audit.count(p.stream(), OldEpochAudit.Source.EXPORT, 1);
            throw new RestartRequired(RestartRequired.Reason.EXPORT_OF_OLD_EPOCH, "export " + exportId + " is of epoch "
                    + manifest.epoch() + ", older than the current epoch " + current);
        }
        if (!manifest.tenant().equals(p.stream().tenant()) || !manifest.catalog().equals(p.stream().catalog())
                || manifest.epoch() != p.epoch()) {
            throw new PermanentFailure("EXPORT_MISMATCH", "export " + exportId + " is of " + manifest.tenant() + "/"
                    + manifest.catalog() + " epoch " + manifest.epoch() + ", not " + p.stream() + " epoch "
                    + p.epoch());
        }
        return new ReadyExport(p, exportId, manifestKey, manifest);
    }

    /** Polls the export until READY, its lease kept alive meanwhile; @return the manifest's key */
    private String awaitReady(Pinned p, String exportId) throws InterruptedException {
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
            p.keeper().check();
            Thread.sleep(properties.pollInterval().toMillis());
        }
    }
}
