package com.acme.catalog.contracts.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Accumulator;
import com.acme.catalog.contracts.checksum.AcceptedStateChecksum.Column;

import org.junit.jupiter.api.Test;

/**
 * The exporter's byte-level checksum is the profile's checksum: for random rows of every export table, the
 * revision history's too (quotes, commas,
 * backslashes, newlines, control characters, non-ASCII) written as PostgreSQL CSV, it equals the Accumulator fed
 * with the same values.
 */
class CsvRowChecksumTest {

    private static final String ALPHABET = "ab,\"\\\n\r\t\u0001\u001f \u007fé€😀{}:[]0";

    @Test
    void equalsTheProfileAccumulatorOnRandomRows() throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (ExportTable t : ExportTable.values()) {
            for (int round = 0; round < 20; round++) {
                Accumulator reference = new Accumulator(t.name(), t.columns());
                CsvRowChecksum fast = new CsvRowChecksum(t);
                int rows = r.nextInt(50);
                for (int i = 0; i < rows; i++) {
                    Object[] values = new Object[t.columns().size()];
                    StringBuilder csv = new StringBuilder();
                    for (int c = 0; c < values.length; c++) {
                        Column col = t.columns().get(c);
                        String text;
                        switch (col.kind()) {
                            case INT -> {
                                long v = r.nextInt(3) == 0 ? 0 : r.nextLong() % 1_000_000_000L;
                                values[c] = v;
                                text = Long.toString(v);
                            }
                            case BOOL -> {
                                boolean v = r.nextBoolean();
                                values[c] = v;
                                text = v ? "t" : "f";
                            }
                            default -> {
                                text = randomText(r);
                                values[c] = text;
                            }
                        }
                        csv.append(c == 0 ? "" : ",").append(csvField(text));
                    }
                    csv.append('\n');
                    reference.row(values);
                    fast.row(csv.toString().getBytes(StandardCharsets.UTF_8));
                }
                assertThat(fast.finish()).as("seed %d, %s", seed, t).isEqualTo(reference.finish());
            }
        }
    }

    @Test
    void refusesMalformedRows() {
        CsvRowChecksum items = new CsvRowChecksum(ExportTable.items);
        for (String bad : new String[] {"a,1,t\n", "a,1,t,{},x\n", "a,01,t,{}\n", "a,1,yes,{}\n", "a,x,t,{}\n",
                "\"a,1,t,{}\n", "\"a\"b,1,t,{}\n"}) {
            assertThatThrownBy(() -> items.row(bad.getBytes(StandardCharsets.UTF_8))).as(bad)
                    .isInstanceOf(CorruptExportException.class);
        }
    }

    /** How PostgreSQL's CSV output writes a text value: quoted when it holds a delimiter, quote, CR/LF or is empty. */
    private static String csvField(String v) {
        if (v.isEmpty() || v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0
                || v.indexOf('\r') >= 0) {
            return "\"" + v.replace("\"", "\"\"") + "\"";
        }
        return v;
    }

    private static String randomText(Random r) {
        int n = r.nextInt(12);
        StringBuilder b = new StringBuilder();
        int[] cps = ALPHABET.codePoints().toArray();
        for (int i = 0; i < n; i++) {
            b.appendCodePoint(cps[r.nextInt(cps.length)]);
        }
        return b.toString();
    }
}
