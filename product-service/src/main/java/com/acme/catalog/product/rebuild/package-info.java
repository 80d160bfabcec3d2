/**
 * Rebuilds of a stream's projection from a resolver export (docs/rebuild.md): the product's side of docs/design.md
 * steps 2 to 7, one class per step, driven by {@link com.acme.catalog.product.rebuild.RebuildService}. Each step takes
 * the previous step's immutable result and returns its own ({@code Reached}: {@code Started}, {@code Pinned},
 * {@code ReadyExport}, {@code LoadedShadow}, {@code CaughtUp}, {@code CutOver}); a failed attempt is weighed by
 * {@code RestartPolicy} and undone from the last result it reached.
 * <ul>
 * <li>Step 2, pin retention: {@link com.acme.catalog.product.rebuild.LeaseStep}, the attempt's one
 * {@link com.acme.catalog.product.rebuild.LeaseKeeper}.</li>
 * <li>Steps 3–4, one snapshot and publish export (made by the resolver, awaited here):
 * {@link com.acme.catalog.product.rebuild.AwaitExportStep}.</li>
 * <li>Step 5, load shadow: {@link com.acme.catalog.product.rebuild.LoadShadowStep} over
 * {@link com.acme.catalog.product.rebuild.ShadowLoader} ({@code ShadowFill}, {@code ExportCopy},
 * {@code PublicViewRows}, {@code ShadowTables}, {@code ReleasePositions}).</li>
 * <li>Step 6, retained events: {@link com.acme.catalog.product.rebuild.RetainedPages} (fetch, verify, parse).</li>
 * <li>Step 7, catch up and cut over: {@link com.acme.catalog.product.rebuild.CatchUpStep},
 * {@link com.acme.catalog.product.rebuild.CutoverStep} ({@code TailApplier}, {@code CutoverRepository}), then
 * {@link com.acme.catalog.product.rebuild.RetireStep} (release the lease, retire the old generation with
 * {@code GenerationRetirer}).</li>
 * </ul>
 * The rebuild's state and timings are its {@code rebuild} row ({@code RebuildRepository}; its changes written with
 * the metrics they move by {@code RebuildLedger}), its API
 * {@code POST /v1/rebuilds} and {@code GET /v1/rebuilds/{id}} ({@code RebuildController}), its settings
 * {@code product.rebuild.*} ({@code RebuildProperties}); tests hold it at a phase through {@code RebuildProbe}.
 */
package com.acme.catalog.product.rebuild;
