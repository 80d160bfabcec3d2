package com.acme.catalog.contracts.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.EventWire;

import org.junit.jupiter.api.Test;

/** Pages are verified over the exact event text: braces and quotes inside strings do not confuse the cutting. */
class EventPageTest {

    @Test
    void cutsEventsExactlyAndVerifiesTheChain() {
        String w1 = "{\"position\":1,\"payload\":{\"s\":\"} ]\\\" {\"}}";
        String w2 = "{\"position\":2,\"payload\":{\"a\":[{\"b\":1}]}}";
        String d1 = ChainDigest.next(ChainDigest.ZERO, w1);
        String d2 = ChainDigest.next(d1, w2);
        String body = "{\"tenant\":\"acme\",\"catalog\":\"c\",\"epoch\":1,\"after\":0,\"through\":2,\"chainDigestAfter\":\""
                + ChainDigest.ZERO + "\",\"chainDigestThrough\":\"" + d2 + "\",\"head\":5,\"events\":["
                + EventWire.withDigest(w1, d1) + "," + EventWire.withDigest(w2, d2) + "]}";
        EventPage page = EventPage.parse(body);
        assertThat(page.head()).isEqualTo(5);
        assertThat(page.verify(ChainDigest.ZERO)).extracting(EventWire.Split::wire).containsExactly(w1, w2);
        assertThatThrownBy(() -> page.verify(d1)).isInstanceOf(ApiException.class);
        EventPage altered = EventPage.parse(body.replace("\"b\":1", "\"b\":2"));
        assertThatThrownBy(() -> altered.verify(ChainDigest.ZERO)).isInstanceOf(ApiException.class)
                .hasMessageContaining("position 2");
        EventPage missing = EventPage.parse(body.replace("\"through\":2", "\"through\":3"));
        assertThatThrownBy(() -> missing.verify(ChainDigest.ZERO)).isInstanceOf(ApiException.class);
    }
}
