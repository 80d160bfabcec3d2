package com.acme.catalog.product.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doCallRealMethod;
import static org.mockito.Mockito.doThrow;

import java.time.Duration;
import java.util.UUID;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.support.ProductIT;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

/**
 * A failure that escapes an attempt's own handling — here abandoning the failed attempt meets a cut database
 * connection — must not leave the rebuild unfinished under this instance's own fence, where no takeover would ever
 * resume it (the fault suite found three rebuilds stuck that way for 18 minutes). The rebuild resumes here: its
 * second attempt fails for its own reason (the fake resolver has no lease endpoint) and the rebuild ends FAILED,
 * instead of staying in LEASING forever.
 */
class EscapedRebuildFailureIT extends ProductIT {

    @Autowired
    RebuildService service;
    @MockitoSpyBean
    RetireStep retire;

    @Test
    void aFailureOutsideTheAttemptResumesTheRebuildHere() {
        doThrow(new DataAccessResourceFailureException("terminating connection due to administrator command"))
                .doCallRealMethod().when(retire).abandon(any(), any());
        UUID id = service.start(new StreamId("acme", "escaped"));

        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(service.find(id).orElseThrow().phase()).isEqualTo(RebuildPhase.FAILED));
        Rebuild r = service.find(id).orElseThrow();
        assertThat(r.attempt()).as("resumed once after the escaped failure").isEqualTo(2);
        assertThat(service.runsHere(new StreamId("acme", "escaped"))).isFalse();
    }
}
