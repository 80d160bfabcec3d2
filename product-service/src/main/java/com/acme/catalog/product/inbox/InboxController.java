package com.acme.catalog.product.inbox;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.web.Access;
import com.acme.catalog.contracts.web.Role;
import com.acme.catalog.product.projection.IntegrationEvent;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /v1/inbox/events}: the relay's deliveries (role relay). */
@RestController
class InboxController {

    private final DeliveryParser parser;
    private final InboxService inbox;

    InboxController(DeliveryParser parser, InboxService inbox) {
        this.parser = parser;
        this.inbox = inbox;
    }

    @PostMapping("/v1/inbox/events")
    Map<String, Object> deliver(@RequestBody byte[] body) {
        Access.require(Role.RELAY);
        List<IntegrationEvent> events = parser.parseDelivery(utf8(body));
        StreamId stream = events.get(0).stream();
        for (IntegrationEvent e : events) {
            if (!e.stream().equals(stream)) {
                throw new ApiException(ProblemCode.INVALID_EVENT, "a delivery carries events of one stream; found "
                        + stream + " and " + e.stream());
            }
        }
        Access.require(stream.tenant(), Role.RELAY);
        InboxService.Delivered d = inbox.deliver(stream, events);
        List<Map<String, Object>> results = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("position", events.get(i).position());
            r.put("epoch", events.get(i).epoch());
            r.put("outcome", d.outcomes().get(i).name());
            results.add(r);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("results", results);
        out.put("contiguousPosition", d.cursor().appliedPosition());
        out.put("epoch", d.cursor().epoch());
        return out;
    }

    private static String utf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw new ApiException(ProblemCode.INVALID_BODY, "body is not valid UTF-8");
        }
    }
}
