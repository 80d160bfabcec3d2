package com.acme.catalog.product.rebuild;

import java.util.Objects;
import java.util.Optional;

import com.acme.catalog.contracts.export.ExportManifest;

/** {@link AwaitExportStep}'s result: a READY export of the attempt's stream and epoch, its manifest read. */
record ReadyExport(Pinned pinned, String exportId, String manifestKey, ExportManifest manifest) implements Reached {

    ReadyExport {
        Objects.requireNonNull(pinned, "pinned");
        Objects.requireNonNull(manifestKey, "manifestKey");
        Objects.requireNonNull(manifest, "manifest");
    }

    @Override
    public Started started() {
        return pinned.started();
    }

    @Override
    public Optional<Pinned> lease() {
        return Optional.of(pinned);
    }
}
