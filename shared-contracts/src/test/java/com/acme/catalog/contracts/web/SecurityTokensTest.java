package com.acme.catalog.contracts.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;

import org.junit.jupiter.api.Test;

class SecurityTokensTest {

    @Test
    void parsesRolesAndTenantLimits() {
        SecurityTokens tokens = SecurityTokens.parse("op=operator;w=writer@acme,globex;r=relay;c=consumer,relay");
        Caller op = tokens.authenticate("op").orElseThrow();
        assertThat(op.roles()).containsExactly(Role.OPERATOR);
        assertThat(op.mayAccess("anyone")).isTrue();
        Caller w = tokens.authenticate("w").orElseThrow();
        assertThat(w.tenants()).isEqualTo(Set.of("acme", "globex"));
        assertThat(w.mayAccess("acme")).isTrue();
        assertThat(w.mayAccess("initech")).isFalse();
        assertThat(tokens.authenticate("c").orElseThrow().roles()).containsExactlyInAnyOrder(Role.CONSUMER, Role.RELAY);
        assertThat(tokens.authenticate("nope")).isEmpty();
        assertThat(tokens.authenticate(null)).isEmpty();
    }

    @Test
    void emptyConfigurationAcceptsNoToken() {
        assertThat(SecurityTokens.parse("").authenticate("")).isEmpty();
        assertThat(SecurityTokens.parse(null).callers()).isEmpty();
    }

    @Test
    void refusesMalformedEntries() {
        assertThatThrownBy(() -> SecurityTokens.parse("op")).hasMessageContaining("entry 1");
        assertThatThrownBy(() -> SecurityTokens.parse("op=admin")).hasMessageContaining("unknown role");
    }
}
