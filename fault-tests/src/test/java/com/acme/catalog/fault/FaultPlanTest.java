package com.acme.catalog.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The fault plans: every kind in every plan; the long run's plan and light faults give well over 200 faults. */
class FaultPlanTest {

    @Test
    void everyPlanHasEveryKindAndTheLongRunPlansWellOver200Faults() {
        for (long seed = 1; seed <= 50; seed++) {
            List<Faults.Planned> shortPlan = Faults.plan(seed, 2 * 60_000, 4_000);
            EnumSet<Faults.Kind> kinds = EnumSet.noneOf(Faults.Kind.class);
            shortPlan.forEach(p -> kinds.add(p.kind()));
            assertThat(kinds).as("seed %d", seed).containsExactlyInAnyOrder(Faults.Kind.values());
            List<Faults.Planned> longPlan = Faults.plan(seed, 20 * 60_000, 15_000);
            // the light thread of the long run cuts connections every 1.5..6 s: at least 1200 s / 6 s of them
            long lightAtLeast = 20 * 60 / 6;
            assertThat(longPlan.size() + lightAtLeast).as("seed %d", seed).isGreaterThanOrEqualTo(250);
            if (seed == 1) {
                System.out.println("[fault] plan of seed 1: short " + shortPlan.size() + ", long " + longPlan.size()
                        + " main faults; light faults in 20 min: " + lightAtLeast + ".." + 20 * 60 * 10 / 15
                        + " (expected ~" + 20 * 60 * 1000 / 3750 + ")");
            }
        }
    }
}
