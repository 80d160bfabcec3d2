package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;

class StartupRebuildsTest {

    @Test
    void parsesTenantCatalogListsAndRefusesBadEntries() {
        assertThat(StartupRebuilds.parse("")).isEmpty();
        assertThat(StartupRebuilds.parse(" acme/shoes , acme/boots,")).containsExactly(
                new StreamId("acme", "shoes"), new StreamId("acme", "boots"));
        assertThatThrownBy(() -> StartupRebuilds.parse("acme")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StartupRebuilds.parse("acme/Shoes")).isInstanceOf(InvalidIdException.class);
    }
}
