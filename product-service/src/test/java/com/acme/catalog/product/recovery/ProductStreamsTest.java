package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.StreamId;

import org.junit.jupiter.api.Test;

class ProductStreamsTest {

    @Test
    void parsesTenantCatalogListsAndRefusesBadEntries() {
        assertThat(RecoveryWorker.parseStreams("")).isEmpty();
        assertThat(RecoveryWorker.parseStreams(" acme/shoes , acme/boots,")).containsExactly(
                new StreamId("acme", "shoes"), new StreamId("acme", "boots"));
        assertThatThrownBy(() -> RecoveryWorker.parseStreams("acme")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecoveryWorker.parseStreams("acme/Shoes")).isInstanceOf(InvalidIdException.class);
    }
}
