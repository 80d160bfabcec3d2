package com.acme.catalog.resolver.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class BlockerTest {

    @Test
    void blockersAreListedByPositionThenKindThenId() {
        List<Blocker> list = new ArrayList<>(List.of(
                new Blocker(Blocker.Kind.GAP, null, 9),
                new Blocker(Blocker.Kind.UNPUBLISHED, "e-1", 4),
                new Blocker(Blocker.Kind.CONSUMER, "b", 4),
                new Blocker(Blocker.Kind.LEASE, "l-1", 4),
                new Blocker(Blocker.Kind.CONSUMER, "a", 4),
                new Blocker(Blocker.Kind.CONSUMER, "z", 2)));
        list.sort(Blocker.ORDER);
        assertThat(RetentionJson.blockers(list)).extracting(b -> b.kind() + ":" + b.id() + ":" + b.position())
                .containsExactly("consumer:z:2", "consumer:a:4", "consumer:b:4", "lease:l-1:4", "unpublished:e-1:4",
                        "gap:null:9");
    }
}
