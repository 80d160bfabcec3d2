package com.acme.catalog.platform.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.Test;

class DaemonThreadsTest {

    @Test
    void threadsAreDaemonsNamedAfterTheirJob() {
        Thread t = DaemonThreads.newThread(() -> { }, "relay-dispatcher");
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getName()).isEqualTo("relay-dispatcher");
        assertThat(t.getUncaughtExceptionHandler()).isNotSameAs(t.getThreadGroup());
        assertThat(DaemonThreads.named("relay-delivery").newThread(() -> { }).getName()).isEqualTo("relay-delivery");
    }

    @Test
    void numberedThreadsCountFromOne() {
        ThreadFactory f = DaemonThreads.numbered("export");
        assertThat(f.newThread(() -> { }).getName()).isEqualTo("export-1");
        Thread second = f.newThread(() -> { });
        assertThat(second.getName()).isEqualTo("export-2");
        assertThat(second.isDaemon()).isTrue();
    }
}
