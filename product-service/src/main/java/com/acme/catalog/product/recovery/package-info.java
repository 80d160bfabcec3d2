/**
 * The recovery worker (docs/design.md §7; steps 6, 7 and 9 on the product side), a policy and a mechanism. The
 * policy is {@code RecoveryDecision}: what a cycle does with a stream, from the {@code StreamState} it observed
 * (pure; no threads, I/O or framework). The mechanism, per stream and under a fenced worker lease
 * ({@code WorkerLeases}): {@code StreamObserver} gathers the state, {@code RecoveryCycle} acts on the decision — it
 * opens a stream ({@code StreamOpener}), adopts a new epoch in place ({@code EpochAdoption}), catches up through
 * retained events in bounded pages ({@code ServingCatchUp}), marks a divergence ({@code ChainDivergence}) or starts a
 * rebuild ({@code RecoveryRebuilds}) — and {@code RecoveryWorker} only schedules cycles (triggers, backoff, the
 * periodic sweep of {@code StreamSweep}); failures back off to a cap and show in {@code recovery_status}. Settings:
 * {@code RecoveryProperties} ({@code product.recovery.*}) and {@code ProductStreamsProperties}
 * ({@code PRODUCT_STREAMS}).
 */
package com.acme.catalog.product.recovery;
