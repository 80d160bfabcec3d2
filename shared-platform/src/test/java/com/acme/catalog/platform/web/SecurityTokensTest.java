package com.acme.catalog.platform.web;

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

    @Test
    void theIdentityOfATokenDoesNotDependOnItsPositionInTheList() {
        Caller first = SecurityTokens.parse("c=consumer;d=consumer").authenticate("c").orElseThrow();
        Caller reordered = SecurityTokens.parse("d=consumer;c=consumer").authenticate("c").orElseThrow();
        Caller other = SecurityTokens.parse("d=consumer;c=consumer").authenticate("d").orElseThrow();
        assertThat(reordered.name()).isEqualTo(first.name()).startsWith(SecurityTokens.DERIVED_PREFIX)
                .doesNotContain("c=").isNotEqualTo(other.name());
        // a token that was first in the list is not the one now first
        assertThat(first.name()).isNotEqualTo("token-1");
    }

    @Test
    void aNamedTokenIsItsNameAndTwoSecretsMayShareOne() {
        SecurityTokens tokens = SecurityTokens.parse("old=consumer@acme#product;new=consumer@acme#product;x=consumer");
        assertThat(tokens.authenticate("old").orElseThrow().name()).isEqualTo("product");
        assertThat(tokens.authenticate("new").orElseThrow().name()).isEqualTo("product");
        assertThat(tokens.authenticate("new").orElseThrow().tenants()).containsExactly("acme");
        assertThat(tokens.authenticate("x").orElseThrow().name()).isNotEqualTo("product");
        assertThatThrownBy(() -> SecurityTokens.parse("a=consumer#token-1")).hasMessageContaining("token-");
        assertThatThrownBy(() -> SecurityTokens.parse("a=consumer#")).hasMessageContaining("entry 1");
    }

    @Test
    void anEmptyTenantListIsAStartUpErrorNotEveryTenant() {
        assertThatThrownBy(() -> SecurityTokens.parse("op=operator;x=consumer@"))
                .hasMessageContaining("entry 2").hasMessageContaining("empty tenant list");
        assertThatThrownBy(() -> SecurityTokens.parse("x=consumer@ , ")).hasMessageContaining("empty tenant list");
        assertThatThrownBy(() -> SecurityTokens.parse("x=consumer@#name")).hasMessageContaining("empty tenant list");
    }

    @Test
    void aDuplicateSecretIsAStartUpError() {
        assertThatThrownBy(() -> SecurityTokens.parse("c=consumer@acme;w=writer;c=operator"))
                .hasMessageContaining("entries 1 and 3").hasMessageContaining("same secret");
    }
}
