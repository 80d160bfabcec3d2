package com.acme.catalog.product.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ChainDigest;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.product.projection.IntegrationEvent;
import com.acme.catalog.product.support.CatalogHistory;
import com.acme.catalog.product.support.ChainWriter;
import com.acme.catalog.product.support.ChainWriter.Event;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

/** Deliveries are cut into the exact wire texts the resolver stored, whatever surrounds them. */
class DeliveryParserTest {

    private final DeliveryParser parser = new DeliveryParser(new ObjectMapper(), 5);
    private final StreamId stream = new StreamId("acme", "shoes");

    @Test
    void recoversTheExactWireOfEveryElementSoTheChainVerifies() {
        CatalogHistory h = new CatalogHistory(new Random(1));
        List<Event> chain = new ChainWriter(stream, 1, new Random(1)).appendAll(List.of(
                h.upsertItem("sku-1", CatalogHistory.attributes("Café \"crème\" } { ] [ \\ 😀", 3, "x\ny")),
                h.upsertItem("sku-2", CatalogHistory.attributes("Ünïcödé ☃", 4, "\u0001")),
                h.putRelease("r-1", "PUBLIC", java.util.Map.of("sku-1", 1, "sku-2", 1))));
        String body = " \n{ \"note\" : {\"events\":[1,2]}, \"events\" :\t[ " + chain.get(0).delivered() + " ,\n"
                + chain.get(1).delivered() + "," + chain.get(2).delivered() + "] , \"more\": [ {}, \"}\" ] }\n ";

        List<IntegrationEvent> events = parser.parseDelivery(body);

        assertThat(events).hasSize(3);
        String digest = ChainDigest.ZERO;
        for (int i = 0; i < 3; i++) {
            assertThat(events.get(i).wire()).isEqualTo(chain.get(i).wire());
            digest = ChainDigest.next(digest, events.get(i).wire());
            assertThat(events.get(i).chainDigest()).isEqualTo(digest);
            assertThat(events.get(i).position()).isEqualTo(i + 1);
        }
        assertThat(events.get(0).payload().get("attributes").get("name").stringValue())
                .isEqualTo("Café \"crème\" } { ] [ \\ 😀");
        assertThat(events.get(2).dependsOn()).hasSize(2);
        assertThat(events.get(2).knownType().name()).isEqualTo("ReleasePublished");
    }

    @Test
    void anUnknownTypeNeedsOnlyTheEnvelope() {
        String wire = "{\"tenant\":\"acme\",\"catalog\":\"shoes\",\"epoch\":2,\"position\":7,"
                + "\"eventId\":\"0193a000-0000-7000-8000-000000000001\",\"type\":\"SomethingNew\",\"payload\":[1]}";
        IntegrationEvent e = parser.parseWire(wire, ChainDigest.ZERO);
        assertThat(e.knownType()).isNull();
        assertThat(e.type()).isEqualTo("SomethingNew");
        assertThat(e.epoch()).isEqualTo(2);
    }

    @Test
    void refusesBodiesThatAreNotOneEventsArrayOfObjects() {
        String one = new ChainWriter(stream, 1, new Random(2)).appendAll(List.of(new CatalogHistory(new Random(2))
                .upsertItem("sku-1", CatalogHistory.attributes("a", 1, "b")))).get(0).delivered();
        for (String body : List.of("", "null", "[]", "{\"events\":null}", "{\"events\":[[]]}", "{\"events\":[]}",
                "{\"events\":[" + one + "]}{}", "{\"events\":[" + one + "]", "{\"events\":[" + one + ",]}",
                "{\"events\":[" + String.join(",", List.of(one, one, one, one, one, one)) + "]}")) {
            assertThatThrownBy(() -> parser.parseDelivery(body)).as(body).isInstanceOf(ApiException.class)
                    .extracting(t -> ((ApiException) t).code()).isEqualTo(ProblemCode.INVALID_BODY);
        }
    }

    @Test
    void refusesElementsThatAreNotIntegrationEvents() {
        Event e = new ChainWriter(stream, 1, new Random(3)).appendAll(List.of(new CatalogHistory(new Random(3))
                .putRelease("r", "PUBLIC", java.util.Map.of("sku-1", 1)))).get(0);
        String d = e.chainDigest();
        for (String element : List.of(e.wire(), e.delivered().replace(",\"chainDigest\"", ", \"chainDigest\""),
                com.acme.catalog.contracts.EventWire.withDigest(e.wire().replace("\"PUBLIC\"", "\"SECRET\""), d),
                com.acme.catalog.contracts.EventWire.withDigest(e.wire().replace("\"revision\":1}]",
                        "\"revision\":0}]"), d),
                com.acme.catalog.contracts.EventWire.withDigest(e.wire().replace("\"epoch\":1", "\"epoch\":1.5"), d),
                com.acme.catalog.contracts.EventWire.withDigest("{\"x\":1}", d))) {
            assertThatThrownBy(() -> parser.parseDelivery("{\"events\":[" + element + "]}")).as(element)
                    .isInstanceOf(ApiException.class)
                    .extracting(t -> ((ApiException) t).code()).isEqualTo(ProblemCode.INVALID_EVENT);
        }
    }
}
