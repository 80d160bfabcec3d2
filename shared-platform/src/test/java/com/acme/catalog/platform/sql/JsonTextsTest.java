package com.acme.catalog.platform.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JsonTextsTest {

    @Test
    void textsAreJoinedBySeparatorsBetweenThem() {
        assertThat(JsonTexts.join(new String[] {"{\"a\":\"x\\u001ey\"}", "[]", "1"}))
                .isEqualTo("{\"a\":\"x\\u001ey\"}\u001e[]\u001e1");
        assertThat(JsonTexts.join(new String[] {"{}"})).isEqualTo("{}");
        assertThat(JsonTexts.join(new String[0])).isEmpty();
    }

    @Test
    void aTextHoldingARawSeparatorIsNotJson() {
        assertThatThrownBy(() -> JsonTexts.join(new String[] {"{}", "\"a\u001eb\""}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
