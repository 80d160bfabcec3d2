/**
 * The recovery worker (docs/design.md §7; steps 6, 7 and 9 on the product side): per stream and under a fenced worker
 * lease ({@code WorkerLeases}), it proves the serving generation's chain is the resolver's ({@code ChainDivergence}),
 * catches it up through retained events in bounded pages ({@code ServingCatchUp}), or starts a rebuild when there is
 * no serving generation, the epoch changed ({@code EpochPoller}) or the resolver answers 410; failures back off to a
 * cap and show in {@code recovery_status}. Settings: {@code RecoveryProperties} ({@code product.recovery.*}) and
 * {@code ProductStreamsProperties} ({@code PRODUCT_STREAMS}).
 */
package com.acme.catalog.product.recovery;
