package com.acme.catalog.product.rebuild;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import com.acme.catalog.contracts.export.CorruptExportException;
import com.acme.catalog.contracts.export.CsvRecordReader;
import com.acme.catalog.contracts.export.ExportFormat;
import com.acme.catalog.contracts.export.ExportObjectReader;
import com.acme.catalog.contracts.export.ExportTable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Each release's current row in a shadow generation gets the (epoch, position) of the revision that made it: the
 * public view's "latest PUBLIC release" is the one made last, and the export's releases object carries no position.
 * The positions are picked out of the revision history's records as they stream into COPY (releases are few; the
 * rest of the history is only looked at for its first field), then written in one statement.
 */
final class ReleasePositions implements ExportObjectReader.RecordHandler {

    private static final String SQL_RELEASE_POSITIONS = """
            UPDATE release_g%1$d r SET epoch = h.epoch, position = h.position
              FROM unnest(?::text[], ?::integer[], ?::bigint[], ?::bigint[]) AS h(release_id, revision, epoch, position)
             WHERE r.release_id = h.release_id AND r.revision = h.revision
            """;
    private static final String SQL_RELEASES = "SELECT count(*) FROM release_g%1$d";
    /** The first field of a release's revision, as PostgreSQL writes it and as any CSV writer may quote it. */
    private static final byte[] RELEASE = "release,".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] QUOTED_RELEASE = "\"release\",".getBytes(StandardCharsets.US_ASCII);

    private final JdbcClient jdbc;
    /** Per release, its highest revision seen so far: {revision, epoch, position}. */
    private final Map<String, long[]> heads = new LinkedHashMap<>();

    ReleasePositions(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void record(byte[] record, int length) throws IOException {
        if (!startsWith(record, length, RELEASE) && !startsWith(record, length, QUOTED_RELEASE)) {
            return;
        }
        Object[] v = ExportFormat.fields(ExportTable.revisions,
                CsvRecordReader.parseRecord(Arrays.copyOf(record, length)));
        long[] head = {(Long) v[2], (Long) v[5], (Long) v[6]};
        heads.merge((String) v[1], head, (a, b) -> b[0] > a[0] ? b : a);
    }

    /**
     * Writes the positions onto generation {@code g}'s release rows (its plain table), in the caller's transaction.
     *
     * @throws ShadowLoader.LoadFailedException when a release's current revision is not in the history
     */
    void apply(long g, String exportId) {
        int n = heads.size();
        String[] ids = new String[n];
        Integer[] revisions = new Integer[n];
        Long[] epochs = new Long[n];
        Long[] positions = new Long[n];
        int i = 0;
        for (Map.Entry<String, long[]> h : heads.entrySet()) {
            ids[i] = h.getKey();
            revisions[i] = (int) h.getValue()[0];
            epochs[i] = h.getValue()[1];
            positions[i++] = h.getValue()[2];
        }
        int updated = jdbc.sql(String.format(Locale.ROOT, SQL_RELEASE_POSITIONS, g))
                .params(ids, revisions, epochs, positions).update();
        long releases = jdbc.sql(String.format(Locale.ROOT, SQL_RELEASES, g)).query(Long.class).single();
        if (updated != releases) {
            throw new ShadowLoader.LoadFailedException("export " + exportId + " has " + (releases - updated)
                    + " release(s) whose current revision is not in its revision history",
                    new CorruptExportException("the releases and revisions objects of export " + exportId
                            + " disagree"));
        }
    }

    private static boolean startsWith(byte[] record, int length, byte[] prefix) {
        return length >= prefix.length && Arrays.equals(record, 0, prefix.length, prefix, 0, prefix.length);
    }
}
