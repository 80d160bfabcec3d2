package com.acme.catalog.product.completeness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.completeness.CompletenessView;
import com.acme.catalog.contracts.completeness.FleetCompletenessView;
import com.acme.catalog.product.completeness.CompletenessService.Completeness;

import org.junit.jupiter.api.Test;

/**
 * The fleet view counts every stream by state and epoch and pages the streams not CURRENT in (tenant, catalog)
 * order.
 */
class FleetCompletenessTest {

    @Test
    void countsByStateAndEpochWithEveryStatePresent() {
        FleetCompleteness fleet = new FleetCompleteness(Map.of(
                new StreamId("a", "x"), completeness(2, CompletenessState.CURRENT, null),
                new StreamId("a", "y"), completeness(1, CompletenessState.BLOCKED, "EPOCH_CHANGED: …"),
                new StreamId("b", "x"), completeness(2, CompletenessState.CURRENT, null)));

        FleetCompletenessView view = fleet.view(null, 10);

        assertThat(view.streams()).isEqualTo(3);
        assertThat(view.byState()).containsExactly(Map.entry("CURRENT", 2L), Map.entry("CATCHING_UP", 0L),
                Map.entry("RETRYING", 0L), Map.entry("BLOCKED", 1L));
        assertThat(view.byEpoch()).containsExactly(Map.entry("1", 1L), Map.entry("2", 2L));
        assertThat(view.notCurrent()).containsExactly(
                new FleetCompletenessView.NotCurrent("a", "y", 1, "BLOCKED", "EPOCH_CHANGED: …"));
        assertThat(view.next()).isNull();
    }

    @Test
    void anEmptyFleetCountsNothing() {
        FleetCompletenessView view = new FleetCompleteness(Map.of()).view(null, 1);
        assertThat(view.streams()).isZero();
        assertThat(view.byState().values()).containsOnly(0L);
        assertThat(view.byEpoch()).isEmpty();
        assertThat(view.notCurrent()).isEmpty();
        assertThat(view.next()).isNull();
    }

    /** Walking the pages by {@code next} lists every stream not CURRENT once, in order, whatever the page size. */
    @Test
    void pagesListEveryStreamNotCurrentOnceInOrder() {
        Map<StreamId, Completeness> all = new HashMap<>();
        List<String> expected = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            for (int c = 0; c < 40; c++) {
                StreamId s = new StreamId("t" + t, String.format("c%02d", c));
                boolean current = c % 3 != 0;
                all.put(s, completeness(1, current ? CompletenessState.CURRENT
                        : c % 2 == 0 ? CompletenessState.CATCHING_UP : CompletenessState.RETRYING, null));
                if (!current) {
                    expected.add(s.tenant() + "/" + s.catalog());
                }
            }
        }
        FleetCompleteness fleet = new FleetCompleteness(all);
        for (int limit : new int[] {1, 7, expected.size() - 1, expected.size(), expected.size() + 1}) {
            List<String> listed = new ArrayList<>();
            StreamId after = null;
            int pages = 0;
            while (true) {
                FleetCompletenessView page = fleet.view(after, limit);
                assertThat(page.notCurrent()).hasSizeLessThanOrEqualTo(limit);
                page.notCurrent().forEach(n -> listed.add(n.tenant() + "/" + n.catalog()));
                pages++;
                if (page.next() == null) {
                    break;
                }
                assertThat(page.notCurrent()).as("a page with next is full").hasSize(limit);
                String[] next = page.next().split("/");
                after = new StreamId(next[0], next[1]);
            }
            assertThat(listed).as("limit %d", limit).isEqualTo(expected);
            assertThat(pages).as("limit %d", limit).isEqualTo((expected.size() + limit - 1) / limit);
        }
    }

    /** {@code after} need not be a listed stream: a CURRENT one, or one the product does not hold, works too. */
    @Test
    void afterAnyStreamStartsAfterItsPlaceInTheOrder() {
        FleetCompleteness fleet = new FleetCompleteness(Map.of(
                new StreamId("a", "a"), completeness(1, CompletenessState.BLOCKED, "x"),
                new StreamId("a", "b"), completeness(1, CompletenessState.CURRENT, null),
                new StreamId("a", "d"), completeness(1, CompletenessState.BLOCKED, "y")));
        assertThat(catalogs(fleet.view(new StreamId("a", "b"), 5))).containsExactly("d");
        assertThat(catalogs(fleet.view(new StreamId("a", "c"), 5))).containsExactly("d");
        assertThat(catalogs(fleet.view(new StreamId("a", "a"), 5))).containsExactly("d");
        assertThat(fleet.view(new StreamId("z", "z"), 5).notCurrent()).isEmpty();
        assertThatThrownBy(() -> fleet.view(null, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> catalogs(FleetCompletenessView view) {
        return view.notCurrent().stream().map(FleetCompletenessView.NotCurrent::catalog).toList();
    }

    private static Completeness completeness(long epoch, CompletenessState state, String reason) {
        return new Completeness(epoch, 0, null, 0, state, reason, false, null,
                new CompletenessView.Projection(1, null, 1));
    }
}
