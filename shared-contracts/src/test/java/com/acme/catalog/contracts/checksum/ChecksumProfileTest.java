package com.acme.catalog.contracts.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;

import org.junit.jupiter.api.Test;

class ChecksumProfileTest {

    @Test
    void theDefaultIsAcceptedStateAndUnknownNamesAreBadRequests() {
        assertThat(ChecksumProfile.named(null)).isEqualTo(ChecksumProfile.ACCEPTED_STATE);
        assertThat(ChecksumProfile.named("")).isEqualTo(ChecksumProfile.ACCEPTED_STATE);
        assertThat(ChecksumProfile.named("accepted-state-v1")).isEqualTo(ChecksumProfile.ACCEPTED_STATE);
        assertThat(ChecksumProfile.named("public-view-v1")).isEqualTo(ChecksumProfile.PUBLIC_VIEW);
        for (String bad : new String[] {"public-view-v2", "PUBLIC-VIEW-V1", "x\u0000y"}) {
            assertThatThrownBy(() -> ChecksumProfile.named(bad)).isInstanceOf(ApiException.class)
                    .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(ProblemCode.INVALID_BODY))
                    .hasMessageNotContaining("\u0000");
        }
        assertThat(ChecksumProfile.ACCEPTED_STATE.tables()).extracting(ChecksumProfile.ProfileTable::name)
                .containsExactly("items", "mappings", "policies", "releases");
        assertThat(ChecksumProfile.PUBLIC_VIEW.tables()).extracting(ChecksumProfile.ProfileTable::name)
                .containsExactly("publicItems");
    }

    @Test
    void publicItemsAreEncodedLikeTheAcceptedStateProfile() {
        Accumulator a = new Accumulator(PublicViewChecksum.TABLE, PublicViewChecksum.COLUMNS);
        a.row("sku-1", 1, "spring", "{\"name\": \"Trail\"}");
        String expected = "\"sku-1\"\t1\t\"spring\"\t{\"name\": \"Trail\"}\n";
        assertThat(a.finish().sha256()).isEqualTo(
                HexFormat.of().formatHex(ChainDigest.sha256().digest(expected.getBytes(StandardCharsets.UTF_8))));
    }
}
