package com.acme.catalog.resolver.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeliveryUrlAllowlistTest {

    private final DeliveryUrlAllowlist list =
            new DeliveryUrlAllowlist(" http://product:8082/v1/inbox/ , https://mirror.internal/ ");

    @Test
    void allowsOnlyUrlsUnderAPrefixOnThePrefixsHost() {
        assertThat(list.allows("http://product:8082/v1/inbox/events")).isTrue();
        assertThat(list.allows("https://mirror.internal/any/path?x=1")).isTrue();
        assertThat(list.allows("http://product:8082/v1/other")).isFalse();
        assertThat(list.allows("http://product:8082/v1/inbox/../../admin")).as("dot segments").isFalse();
        assertThat(list.allows("http://product:8082/v1/inbox/./events")).isFalse();
        assertThat(list.allows("https://mirror.internal.attacker.example/")).isFalse();
        assertThat(list.allows("https://mirror.internal@attacker.example/")).isFalse();
        assertThat(list.allows("http://mirror.internal/")).as("scheme is part of the prefix").isFalse();
        assertThat(list.allows("not a url")).isFalse();
        assertThat(list.allows(null)).isFalse();
    }

    @Test
    void anEmptyListAllowsNothingAndAMalformedEntryIsAStartUpError() {
        assertThat(new DeliveryUrlAllowlist("").allows("http://product:8082/v1/inbox/events")).isFalse();
        assertThat(new DeliveryUrlAllowlist(null).allows("http://product:8082/")).isFalse();
        assertThatThrownBy(() -> new DeliveryUrlAllowlist("product:8082/")).hasMessageContaining("http(s)");
        assertThatThrownBy(() -> new DeliveryUrlAllowlist("http:///inbox")).hasMessageContaining("host");
        assertThatThrownBy(() -> new DeliveryUrlAllowlist("http://u@h/")).hasMessageContaining("user info");
    }
}
