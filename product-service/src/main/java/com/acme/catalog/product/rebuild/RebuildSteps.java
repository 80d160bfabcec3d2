package com.acme.catalog.product.rebuild;

import org.springframework.stereotype.Component;

/** The steps {@link RebuildService} drives, one per docs/design.md step, in their order. */
@Component
record RebuildSteps(LeaseStep lease, AwaitExportStep export, LoadShadowStep load, CatchUpStep catchUp,
        CutoverStep cutover, RetireStep retire) {
}
