package com.acme.catalog.resolver.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import com.acme.catalog.contracts.stream.StreamSummary;
import com.acme.catalog.resolver.support.ResolverIT;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * The rolled back listing a product polls every few seconds reads only the marked open cursors: among thousands of
 * open cursors with two marked (and one marked but fenced), it answers exactly the two, in order, and its plan
 * reads the partial index {@code stream_cursor_rolled_back} instead of every stream.
 */
@TestPropertySource(properties = {"control.rollback-check-interval=PT1H", "control.high-water-mark-interval=PT1H"})
// its 5,000 cursors need not stay in a cached context, with its background work, for the rest of the test JVM
@DirtiesContext
class StreamDirectoryIT extends ResolverIT {

    @Autowired
    StreamDirectory directory;
    @Autowired
    JdbcClient jdbc;

    @Test
    void theRolledBackPageReadsOnlyTheMarkedOpenCursors() {
        jdbc.sql("""
                INSERT INTO stream_cursor (tenant, catalog, epoch, position)
                SELECT 'dir', 'c' || lpad(g::text, 5, '0'), 1, g FROM generate_series(1, 5000) g
                """).update();
        jdbc.sql("UPDATE stream_cursor SET rolled_back_at = now(), rolled_back_reason = 'test'"
                + " WHERE tenant = 'dir' AND catalog IN ('c00042', 'c04000', 'c04999')").update();
        jdbc.sql("UPDATE stream_cursor SET fenced_at = now() WHERE tenant = 'dir' AND catalog = 'c04999'").update();
        jdbc.sql("INSERT INTO stream_cursor (tenant, catalog, epoch, position) VALUES ('dir', 'c04999', 2, 0)")
                .update();
        jdbc.sql("ANALYZE stream_cursor").update();

        List<StreamSummary> rolledBack = directory.page("dir", null, Set.of(), true, 100);
        assertThat(rolledBack).extracting(StreamSummary::catalog).containsExactly("c00042", "c04000");
        assertThat(rolledBack).allMatch(StreamSummary::rolledBack);
        assertThat(directory.page("dir", null, Set.of(), false, 10_000)).hasSize(5000);

        String plan = String.join("\n", jdbc.sql("EXPLAIN " + StreamDirectory.SQL_ROLLED_BACK_PAGE)
                .param("tenant", "dir").param("afterTenant", "").param("afterCatalog", "")
                .param("tenants", new String[0]).param("limit", 100)
                .query(String.class).list());
        assertThat(plan).as(plan).contains("stream_cursor_rolled_back");
    }
}
