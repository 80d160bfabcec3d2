package com.acme.catalog.product.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.epoch.StartsFrom;
import com.acme.catalog.product.recovery.RecoveryAction.Adopt;
import com.acme.catalog.product.recovery.RecoveryAction.Blocked;
import com.acme.catalog.product.recovery.RecoveryAction.CatchUp;
import com.acme.catalog.product.recovery.RecoveryAction.Current;
import com.acme.catalog.product.recovery.RecoveryAction.Diverged;
import com.acme.catalog.product.recovery.RecoveryAction.Fact;
import com.acme.catalog.product.recovery.RecoveryAction.Idle;
import com.acme.catalog.product.recovery.RecoveryAction.LeftToTheRelay;
import com.acme.catalog.product.recovery.RecoveryAction.NotAdopted;
import com.acme.catalog.product.recovery.RecoveryAction.NotOwner;
import com.acme.catalog.product.recovery.RecoveryAction.Observe;
import com.acme.catalog.product.recovery.RecoveryAction.Open;
import com.acme.catalog.product.recovery.RecoveryAction.Rebuild;
import com.acme.catalog.product.recovery.RecoveryAction.RebuildUnderWay;
import com.acme.catalog.product.recovery.StreamState.Check;
import com.acme.catalog.product.recovery.StreamState.Serving;
import com.acme.catalog.product.recovery.StreamState.Source;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The recovery policy as a table, one row per case of docs/design.md §7 "A recovery worker" and docs/rebuild.md
 * "Triggers and what a cycle does", plus every way a new epoch is or is not adopted in place (docs/epochs.md "The
 * product"). The base row is a stream served in epoch 1 at position 5, the resolver at the same place: CURRENT.
 */
class RecoveryDecisionTest {

    private static final String D5 = "5".repeat(64);
    private static final String OTHER = "a".repeat(64);
    private static final int VERSION = 3;

    /** Served at (epoch 1, position 5, D5), resolver cursor 5 of epoch 1, every check passed. */
    private static final StreamState BASE = new StreamState(false, true, false, new Serving(1, 5, 5, D5, VERSION),
            true, VERSION, source(1, 1, 1, 5, null), Check.PASSED, Check.PASSED);

    private static Source source(long control, long learnt, long epoch, long cursor, StartsFrom from) {
        return new Source(control, learnt, epoch, cursor, 0, from, null, null);
    }

    /** The resolver rotated to epoch 2 from {@code from}; its new cursor at {@code cursor}. */
    private static UnaryOperator<StreamState> rotated(StartsFrom from) {
        return s -> s.withSource(source(2, 2, 2, 0, from)).withAhead(null).withChain(null);
    }

    private static UnaryOperator<StreamState> served(long applied, long chain, String digest) {
        return s -> new StreamState(s.periodic(), s.leaseHeld(), s.rebuildRunsHere(),
                new Serving(1, applied, chain, digest, VERSION), s.subscribed(), s.thisVersion(), s.source(),
                s.ahead(), s.chain());
    }

    private static UnaryOperator<StreamState> source(UnaryOperator<Source> f) {
        return s -> s.withSource(f.apply(s.source()));
    }

    private static StartsFrom from(long epoch, long position, String digest) {
        return new StartsFrom(epoch, position, digest, false);
    }

    private record Row(String name, UnaryOperator<StreamState> given, RecoveryAction expected) {
    }

    private static Rebuild notAdopted(NotAdopted why) {
        return new Rebuild(Rebuild.Kind.RECOVERY, "", true, why);
    }

    private static List<Row> table() {
        return List.of(
                new Row("not the lease holder", s -> new StreamState(false, false, false, null, true, VERSION, null,
                        null, null), new NotOwner()),
                new Row("rebuild under way", s -> new StreamState(false, true, true, null, true, VERSION, null, null,
                        null), new RebuildUnderWay()),
                new Row("not serving, a stream to serve: opened", s -> new StreamState(false, true, false, null, true,
                        VERSION, null, null, null), new Open()),
                new Row("not serving, not a stream to serve", s -> new StreamState(false, true, false, null, false,
                        VERSION, null, null, null), new Idle("")),
                new Row("newer projection version serving: left to its instances", s -> new StreamState(false, true,
                        false, new Serving(1, 5, 5, D5, VERSION + 1), true, VERSION, null, null, null), new Idle("")),
                new Row("the resolver not observed yet", s -> s.withSource(null), new Observe(Fact.SOURCE)),
                new Row("epoch moved, start unknown: rebuilt", rotated(null), notAdopted(NotAdopted.START_UNKNOWN)),
                new Row("epoch moved, learnt only (the epoch API unread): rebuilt", source(
                        x -> new Source(0, 2, 1, 5, 0, from(1, 5, D5), null, null)),
                        notAdopted(NotAdopted.START_OF_ANOTHER_EPOCH)),
                new Row("epoch behind: BLOCKED", source(x -> source(1, 2, 1, 5, null)).andThen(
                        s -> new StreamState(false, true, false, new Serving(3, 5, 5, D5, VERSION), true, VERSION,
                                s.source(), null, null))::apply, new Blocked("")),
                new Row("rolled back beneath: reported ahead first", served(7, 7, D5).andThen(s -> s.withAhead(null))
                        ::apply, new Observe(Fact.AHEAD_REPORT)),
                new Row("ahead of the resolver, rollback confirmed: diverged", served(7, 7, D5).andThen(
                        s -> s.withAhead(new Check("confirmed")))::apply, new Diverged("confirmed")),
                new Row("ahead of the resolver, not confirmed: the chain decides", served(7, 7, D5).andThen(
                        s -> s.withChain(null))::apply, new Observe(Fact.CHAIN_CHECK)),
                new Row("chain diverged, marked before", source(x -> new Source(1, 1, 1, 5, 0, null, "marked",
                        null)), new Diverged("marked")),
                new Row("chain not checked yet", s -> s.withChain(null), new Observe(Fact.CHAIN_CHECK)),
                new Row("chain diverged, found now", s -> s.withChain(new Check("found")), new Diverged("found")),
                new Row("older projection version serving: upgraded", s -> new StreamState(false, true, false,
                        new Serving(1, 5, 5, D5, VERSION - 1), true, VERSION, s.source(), Check.PASSED, Check.PASSED),
                        new Rebuild(Rebuild.Kind.PROJECTION_UPGRADE, "", false, null)),
                new Row("current", s -> s, new Current()),
                new Row("behind: caught up", source(x -> source(1, 1, 1, 9, null)), new CatchUp()),
                new Row("pruned tail: rebuilt", source(x -> new Source(1, 1, 1, 9, 7, null, null, null)),
                        new Rebuild(Rebuild.Kind.RECOVERY, "", false, null)),
                new Row("left to the relay (periodic, first look)", periodic(source(x -> source(1, 1, 1, 9, null))),
                        new LeftToTheRelay()),
                new Row("left to the relay (periodic, delivered what the last one saw)",
                        periodic(source(x -> new Source(1, 1, 1, 9, 0, null, null, 5L))), new LeftToTheRelay()),
                new Row("periodic, the relay did not deliver for a whole interval: caught up",
                        periodic(source(x -> new Source(1, 1, 1, 9, 0, null, null, 6L))), new CatchUp()),
                // adoption in place of a new epoch: only a proven equal state
                new Row("adoptable: (1, 5, D5) is where epoch 2 starts", rotated(from(1, 5, D5)),
                        new Adopt(2, from(1, 5, D5))),
                new Row("one event ahead of the start: rebuilt", rotated(from(1, 4, D5)),
                        notAdopted(NotAdopted.AHEAD)),
                new Row("one event behind the start: rebuilt", rotated(from(1, 6, D5)),
                        notAdopted(NotAdopted.BEHIND)),
                new Row("another digest at the start: rebuilt", rotated(from(1, 5, OTHER)),
                        notAdopted(NotAdopted.DIGEST_DIFFERS)),
                new Row("starts from another epoch: rebuilt", rotated(new StartsFrom(2L, 5, D5, false)),
                        notAdopted(NotAdopted.OTHER_EPOCH)),
                new Row("a reset (starts from nothing): rebuilt", rotated(StartsFrom.nothing()),
                        notAdopted(NotAdopted.STARTS_EMPTY)),
                new Row("the database has not opened the new epoch: rebuilt", rotated(from(1, 5, D5)).andThen(
                        source(x -> source(2, 2, 1, 5, from(1, 5, D5))))::apply, notAdopted(NotAdopted.NOT_OPENED)),
                new Row("verified events held above the applied position: rebuilt", rotated(from(1, 5, D5))
                        .andThen(served(5, 6, D5))::apply, notAdopted(NotAdopted.HELD_ABOVE)),
                new Row("marked diverged: rebuilt", rotated(from(1, 5, D5)).andThen(source(x -> new Source(2, 2, 2,
                        0, 0, from(1, 5, D5), "marked", null)))::apply, notAdopted(NotAdopted.DIVERGED)));
    }

    private static UnaryOperator<StreamState> periodic(UnaryOperator<StreamState> f) {
        return s -> {
            StreamState t = f.apply(s);
            return new StreamState(true, t.leaseHeld(), t.rebuildRunsHere(), t.serving(), t.subscribed(),
                    t.thisVersion(), t.source(), t.ahead(), t.chain());
        };
    }

    @TestFactory
    Stream<DynamicTest> everyCaseDecidesItsAction() {
        return table().stream().map(row -> DynamicTest.dynamicTest(row.name(), () -> {
            RecoveryAction got = RecoveryDecision.decide(row.given().apply(BASE));
            assertThat(got).as(row.name()).hasSameClassAs(row.expected());
            if (row.expected() instanceof Rebuild r) {
                Rebuild g = (Rebuild) got;
                assertThat(g.kind()).isEqualTo(r.kind());
                assertThat(g.discardHeld()).isEqualTo(r.discardHeld());
                assertThat(g.notAdopted()).isEqualTo(r.notAdopted());
            } else if (!(row.expected() instanceof Idle) && !(row.expected() instanceof Blocked)) {
                assertThat(got).isEqualTo(row.expected());
            }
        }));
    }

    @Test
    void theEpochStartIsProvenNeverGuessed() {
        Serving at5 = new Serving(1, 5, 5, D5, VERSION);
        assertThat(RecoveryDecision.adoption(at5, source(2, 2, 2, 0, from(1, 5, D5)))).isEmpty();
        assertThat(RecoveryDecision.adoption(new Serving(1, 0, 0, ChainDigest.ZERO, VERSION),
                source(2, 2, 2, 0, StartsFrom.nothing()))).as("an empty projection and a reset: not the same history")
                .contains(NotAdopted.STARTS_EMPTY);
    }

    /** The policy stays pure: no framework, JDBC, threads or network in its files. */
    @Test
    void thePolicyImportsNoFrameworkJdbcThreadsOrNetwork() throws IOException {
        Path dir = Path.of("src/main/java/com/acme/catalog/product/recovery");
        for (String file : List.of("RecoveryDecision.java", "RecoveryAction.java", "StreamState.java")) {
            List<String> imports = Files.readAllLines(dir.resolve(file)).stream()
                    .filter(l -> l.startsWith("import ")).toList();
            assertThat(imports).as(file).isNotEmpty().noneMatch(l -> l.matches(
                    "import (static )?(org\\.springframework|java\\.sql|javax\\.sql|java\\.util\\.concurrent|java\\.net"
                            + "|java\\.io|java\\.nio|org\\.slf4j|io\\.micrometer)\\b.*"));
        }
    }
}
