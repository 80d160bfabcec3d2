package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import com.acme.catalog.contracts.rebuild.RebuildView;

import org.junit.jupiter.api.Test;

/** The rate and time-left arithmetic of a rebuild's progress, on a clock the test moves. */
class ProgressRateTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);

    private void advance(long seconds) {
        now.addAndGet(seconds * SECOND);
    }

    @Test
    void theRateIsTheGrowthOverTheRecentWindowNotSinceTheStart() {
        ProgressRate rate = new ProgressRate(now::get, Duration.ofSeconds(10), Duration.ofSeconds(1));
        // 20 s at 100/s, then 20 s at 1,000/s
        for (int i = 0; i < 20; i++) {
            advance(1);
            rate.add(100);
        }
        assertThat(rate.perSecond()).isEqualTo(100.0);
        for (int i = 0; i < 20; i++) {
            advance(1);
            rate.add(1_000);
        }
        assertThat(rate.count()).isEqualTo(22_000);
        // the anchor is the newest sample at least 10 s old: the last 10 s ran at 1,000/s
        assertThat(rate.perSecond()).isEqualTo(1_000.0);
    }

    @Test
    void aStalledCountShowsAFallingRate() {
        ProgressRate rate = new ProgressRate(now::get, Duration.ofSeconds(10), Duration.ofSeconds(1));
        for (int i = 0; i < 10; i++) {
            advance(1);
            rate.add(50);
        }
        assertThat(rate.perSecond()).isEqualTo(50.0);
        advance(10);
        assertThat(rate.perSecond()).isEqualTo(25.0);
    }

    @Test
    void chunksWithinASecondKeepNoSample() {
        ProgressRate rate = new ProgressRate(now::get, Duration.ofSeconds(10), Duration.ofSeconds(1));
        for (int i = 0; i < 1_000; i++) {
            now.addAndGet(SECOND / 1_000);
            rate.add(1);
        }
        assertThat(rate.count()).isEqualTo(1_000);
        assertThat(rate.perSecond()).isEqualTo(1_000.0);
    }

    @Test
    void noTimePassedIsNoRate() {
        ProgressRate rate = new ProgressRate(now::get);
        rate.add(10);
        assertThat(rate.perSecond()).isNull();
    }

    @Test
    void theTimeLeftIsTheRemainderAtTheRateRoundedUp() {
        assertThat(ProgressRate.eta(400, 1_000L, 200.0)).isEqualTo(Duration.ofSeconds(3));
        assertThat(ProgressRate.eta(401, 1_000L, 200.0)).isEqualTo(Duration.ofSeconds(3));
        assertThat(ProgressRate.eta(399, 1_000L, 200.0)).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void aZeroOrUnknownRateOrTotalIsNoEstimate() {
        assertThat(ProgressRate.eta(10, 100L, 0.0)).isNull();
        assertThat(ProgressRate.eta(10, 100L, null)).isNull();
        assertThat(ProgressRate.eta(10, null, 5.0)).isNull();
    }

    @Test
    void doneReachingTotalIsZeroWhateverTheRate() {
        assertThat(ProgressRate.eta(100, 100L, 0.0)).isEqualTo(Duration.ZERO);
        assertThat(ProgressRate.eta(100, 100L, null)).isEqualTo(Duration.ZERO);
        assertThat(ProgressRate.eta(120, 100L, 3.0)).isEqualTo(Duration.ZERO);
    }

    @Test
    void aLoadCountsRowsAgainstTheManifestAndEstimatesOnlyWhileItCopies() {
        RebuildProgress p = new RebuildProgress(now::get);
        p.phase(RebuildPhase.LOADING);
        p.loading(1_000);
        for (int i = 0; i < 4; i++) {
            advance(1);
            p.rowsCopied(100);
        }
        RebuildView.Progress v = p.view(null);
        assertThat(v.unit()).isEqualTo("rows");
        assertThat(v.done()).isEqualTo(400);
        assertThat(v.total()).isEqualTo(1_000);
        assertThat(v.ratePerSecond()).isEqualTo(100.0);
        assertThat(v.phaseEta()).isEqualTo("PT6S");
        assertThat(v.eta()).as("the tail is unknown before the catch-up saw the head").isNull();

        advance(6);
        p.rowsCopied(600);
        p.copied();
        v = p.view(null);
        assertThat(v.done()).isEqualTo(v.total()).isEqualTo(1_000);
        assertThat(v.ratePerSecond()).as("the copy's average").isEqualTo(100.0);
        assertThat(v.phaseEta()).as("indexes and attach are not estimated").isNull();
        assertThat(v.load().eta()).isEqualTo("PT0S");
    }

    @Test
    void aCatchUpCountsEventsAgainstTheHeadLastSeenAndTheWholeEtaAddsTheLastCutover() {
        RebuildProgress p = new RebuildProgress(now::get);
        p.phase(RebuildPhase.LOADING);
        p.loading(10);
        p.rowsCopied(10);
        p.copied();
        p.phase(RebuildPhase.CATCHING_UP);
        p.catchingUp(100);
        advance(2);
        p.page(150, 300, 50);
        advance(2);
        p.page(200, 400, 50);
        RebuildView.Progress v = p.view(Duration.ofSeconds(3));
        assertThat(v.unit()).isEqualTo("events");
        assertThat(v.done()).isEqualTo(100);
        assertThat(v.total()).as("done plus the events up to the head last seen").isEqualTo(300);
        assertThat(v.head()).isEqualTo(400);
        assertThat(v.ratePerSecond()).isEqualTo(25.0);
        assertThat(v.phaseEta()).isEqualTo("PT8S");
        assertThat(v.eta()).isEqualTo("PT11S");
        assertThat(p.view(null).eta()).as("no cutover measured yet: the catch-up's alone").isEqualTo("PT8S");

        p.page(400, 400, 0);
        advance(1);
        assertThat(p.view(null).phaseEta()).isEqualTo("PT0S");
        p.phase(RebuildPhase.CUTTING_OVER);
        p.phase(RebuildPhase.DONE);
        v = p.view(Duration.ofSeconds(3));
        assertThat(v.eta()).isEqualTo("PT0S");
        assertThat(v.unit()).isNull();
        assertThat(v.catchUp().done()).isEqualTo(100);
        assertThat(v.catchUp().total()).isEqualTo(100);
        assertThat(v.load().done()).isEqualTo(10);
    }

    @Test
    void aStalledCatchUpHasNoEstimate() {
        RebuildProgress p = new RebuildProgress(now::get);
        p.phase(RebuildPhase.CATCHING_UP);
        p.catchingUp(0);
        advance(1);
        p.page(0, 50, 0);
        RebuildView.Progress v = p.view(Duration.ofSeconds(1));
        assertThat(v.ratePerSecond()).isEqualTo(0.0);
        assertThat(v.phaseEta()).isNull();
        assertThat(v.eta()).isNull();
    }
}
