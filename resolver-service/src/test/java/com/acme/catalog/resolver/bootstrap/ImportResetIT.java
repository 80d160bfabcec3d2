package com.acme.catalog.resolver.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.resolver.support.ResolverIT;
import com.acme.catalog.testsupport.SnapshotEventsGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A failed import is undone by a reset, never by reusing positions: an import that stopped midway leaves a partial
 * stream that refuses a plain import; the import with a reset gives the stream a new, empty epoch under the import
 * fence (which the new epoch's row carries, so no writer gets in between) and imports the file into it. The old
 * epoch's positions are fenced, never written again.
 */
class ImportResetIT extends ResolverIT {

    @Autowired
    BootstrapImporter importer;
    @Autowired
    JdbcClient jdbc;

    @TempDir
    Path dir;

    @Test
    void aFailedImportIsRetriedByAResetAndAnImportUnderTheSameFence() throws Exception {
        StreamId stream = new StreamId("acme", "reset-retry");
        String base = "/v1/streams/acme/reset-retry";
        Path file = dir.resolve("events.json");
        SnapshotEventsGenerator.write(file, 2_000, 9);

        // the first import dies after 3 chunks (its lock session killed): a partial stream
        assertThatThrownBy(() -> importer.importFile(stream, file, ImportOptions.defaults(), new ImportListener() {
            @Override
            public void chunkCommitted(int chunk, long committedEvents, int totalEvents) {
                if (chunk == 3) {
                    int pid = get(base, "op").body().path("importFence").path("sessionPid").asInt();
                    jdbc.sql("SELECT pg_terminate_backend(?)").param(pid).query(Boolean.class).single();
                }
            }
        })).isInstanceOf(ImportFailedException.class).satisfies(e -> assertThat(((ImportFailedException) e).report()
                .summary().failure().action()).contains("--reset REASON"));
        assertThat(get(base, "op").body().path("cursor").asLong()).isEqualTo(300);

        // a plain import refuses the partial stream and says what to do
        assertThatThrownBy(() -> importer.importFile(stream, file, ImportOptions.defaults(), ImportListener.NONE))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ProblemCode.DESTINATION_NOT_EMPTY);
                    assertThat(e.getMessage()).contains("--reset REASON");
                });

        List<Integer> writesAtReset = new ArrayList<>();
        List<Long> resetTo = new ArrayList<>();
        ImportReport again = importer.importFile(stream, file, ImportOptions.defaults().withReset("retry after a "
                + "failed import"), new ImportListener() {
                    @Override
                    public void reset(long epoch) {
                        resetTo.add(epoch);
                        // the new, empty epoch already refuses writes: the fence came with it
                        writesAtReset.add(put(base + "/items/between", "w", Map.of("attributes", Map.of())).status());
                    }
                }, "reset-test");

        assertThat(again.status()).isEqualTo(ImportReport.Status.COMPLETED);
        assertThat(resetTo).containsExactly(2L);
        assertThat(writesAtReset).containsExactly(409);
        assertThat(again.summary().resetEpoch()).isEqualTo(2L);
        assertThat(again.summary().epoch()).isEqualTo(2L);
        assertThat(again.summary().firstPosition()).isEqualTo(1L);
        assertThat(again.summary().lastPosition()).isEqualTo(2_000L);
        Response status = get(base, "op");
        assertThat(status.body().path("epoch").asLong()).isEqualTo(2);
        assertThat(status.body().path("cursor").asLong()).isEqualTo(2_000);
        assertThat(status.body().path("importFence").isNull()).isTrue();
        // the old epoch keeps its 300 positions, fenced; nothing was ever written there again
        assertThat(jdbc.sql("SELECT epoch, count(*) FROM outbox WHERE tenant = 'acme' AND catalog = 'reset-retry' "
                + "GROUP BY epoch ORDER BY epoch").query((rs, n) -> rs.getLong(1) + ":" + rs.getLong(2)).list())
                .containsExactly("1:300", "2:2000");
        assertThat(jdbc.sql("SELECT fenced_at IS NOT NULL FROM stream_cursor WHERE tenant = 'acme' AND catalog = "
                + "'reset-retry' AND epoch = 1").query(Boolean.class).single()).isTrue();
        assertThat(jdbc.sql("SELECT count(*) FROM accepted_revision WHERE tenant = 'acme' AND catalog = "
                + "'reset-retry' AND epoch = 1").query(Long.class).single()).isZero();
        assertThat(put(base + "/items/after", "w", Map.of("attributes", Map.of())).number("position"))
                .isEqualTo(2_001);
    }

    @Test
    void aResetNeedsTheFenceItWasAskedUnder() throws ExecutionException, InterruptedException {
        StreamId stream = new StreamId("acme", "reset-empty");
        Path file = dir.resolve("small.json");
        SnapshotEventsGenerator.write(file, 50, 2);
        // a reset of an empty stream is harmless: the import lands in the new epoch
        ImportReport r = importer.importFile(stream, file, ImportOptions.defaults().withReset("fresh"),
                ImportListener.NONE);
        assertThat(r.summary().resetEpoch()).isEqualTo(2L);
        assertThat(get("/v1/epochs/acme/reset-empty", "op").body().path("history").toString())
                .contains("fresh");
    }

    @Test
    void anImportAboveAnEpochResetsTheEmptyStreamUntilItIsAboveIt() {
        StreamId stream = new StreamId("acme", "epoch-above");
        Path file = dir.resolve("above.json");
        SnapshotEventsGenerator.write(file, 40, 6);
        ImportReport r = importer.importFile(stream, file, ImportOptions.defaults().withEpochAbove(3L),
                ImportListener.NONE);
        assertThat(r.summary().epoch()).isEqualTo(4L);
        assertThat(r.summary().firstPosition()).isEqualTo(1L);
        assertThat(get("/v1/streams/acme/epoch-above", "op").body().path("epoch").asLong()).isEqualTo(4);
        // a stream with state is not reset to raise its epoch
        put("/v1/streams/acme/epoch-full/items/a", "w", Map.of("attributes", Map.of()));
        assertThatThrownBy(() -> importer.importFile(new StreamId("acme", "epoch-full"), file,
                ImportOptions.defaults().withEpochAbove(3L), ImportListener.NONE))
                .isInstanceOfSatisfying(ApiException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.DESTINATION_NOT_EMPTY));
    }
}
