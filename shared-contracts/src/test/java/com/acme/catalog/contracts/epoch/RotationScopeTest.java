package com.acme.catalog.contracts.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.InvalidIdException;

import org.junit.jupiter.api.Test;

/**
 * A fleet rotation's scope: exactly one of all, tenant, streams; its key is the same for the same set of streams
 * however it is written (the same scope while a job runs answers that job), and differs otherwise.
 */
class RotationScopeTest {

    @Test
    void theKeyNamesTheSetOfStreamsNotHowItWasWritten() {
        RotationScope ab = list(new StreamRef("t", "a"), new StreamRef("t", "b"));
        RotationScope baa = list(new StreamRef("t", "b"), new StreamRef("t", "a"), new StreamRef("t", "a"));
        assertThat(ab.key()).isEqualTo(baa.key()).startsWith("streams:");
        assertThat(ab.key()).isNotEqualTo(list(new StreamRef("t", "a")).key());
        assertThat(baa.named()).hasSize(2);
        assertThat(RotationScope.everything().key()).isEqualTo("all");
        assertThat(new RotationScope(null, "t", null).key()).isEqualTo("tenant:t");
    }

    @Test
    void exactlyOneFormIsAccepted() {
        assertThatThrownBy(() -> new RotationScope(null, null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RotationScope(true, "t", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RotationScope(false, null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RotationScope(null, null, List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RotationScope(null, "Bad", null)).isInstanceOf(InvalidIdException.class);
        assertThatThrownBy(() -> new StreamRef("t", null)).isInstanceOf(InvalidIdException.class);
    }

    @Test
    void anEmptyStartIsPositionZeroOfNoEpoch() {
        assertThat(StartsFrom.nothing()).isEqualTo(new StartsFrom(null, 0, ChainDigest.ZERO, true));
        assertThatThrownBy(() -> new StartsFrom(1L, 0, ChainDigest.ZERO, true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StartsFrom(1L, 3, "ABC", false)).isInstanceOf(IllegalArgumentException.class);
    }

    private static RotationScope list(StreamRef... refs) {
        return new RotationScope(null, null, List.of(refs));
    }
}
