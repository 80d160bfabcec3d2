package com.acme.catalog.contracts.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Table;

import org.junit.jupiter.api.Test;

class AcceptedStateChecksumTest {

    @Test
    void encodesRowsExactlyAsTheProfileSays() {
        Accumulator a = new Accumulator(Table.items);
        a.row("sku-1", 3, false, "{\"name\": \"Tab\\there\"}");
        a.row("sku\"2", 1L, true, "{}");
        String expected = "\"sku-1\"\t3\tfalse\t{\"name\": \"Tab\\there\"}\n" + "\"sku\\\"2\"\t1\ttrue\t{}\n";
        var result = a.finish();
        assertThat(result.rows()).isEqualTo(2);
        assertThat(result.sha256()).isEqualTo(
                HexFormat.of().formatHex(ChainDigest.sha256().digest(expected.getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void emptyTableIsTheDigestOfNothing() {
        assertThat(new Accumulator(Table.releases).finish().sha256())
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void refusesRowsOfTheWrongShape() {
        assertThatThrownBy(() -> new Accumulator(Table.policies).row("p", 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Table.mappings.key()).isEqualTo("mapping_id");
    }
}
