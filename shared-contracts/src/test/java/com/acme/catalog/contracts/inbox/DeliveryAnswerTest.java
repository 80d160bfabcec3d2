package com.acme.catalog.contracts.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The inbox answer writes the JSON the product's maps wrote before it, field for field and in that order. */
class DeliveryAnswerTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void anAnswerListsEachEventsOutcomeThenTheCursor() {
        DeliveryAnswer answer = new DeliveryAnswer(List.of(new DeliveryResult(7, 2, "APPLIED"),
                new DeliveryResult(9, 2, "PARKED")), 7, 2);
        assertThat(JSON.writeValueAsString(answer)).isEqualTo("{\"results\":[{\"position\":7,\"epoch\":2,"
                + "\"outcome\":\"APPLIED\"},{\"position\":9,\"epoch\":2,\"outcome\":\"PARKED\"}],"
                + "\"contiguousPosition\":7,\"epoch\":2}");
    }

    @Test
    void aClientReadsTheAnswerBack() {
        DeliveryAnswer read = JSON.readValue("{\"results\":[{\"position\":1,\"epoch\":1,\"outcome\":\"DUPLICATE\"}],"
                + "\"contiguousPosition\":1,\"epoch\":1}", DeliveryAnswer.class);
        assertThat(read).isEqualTo(new DeliveryAnswer(List.of(new DeliveryResult(1, 1, "DUPLICATE")), 1, 1));
    }
}
