package com.acme.catalog.product.inbox;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.inbox.DeliveryAnswer;
import com.acme.catalog.contracts.inbox.DeliveryResult;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.product.projection.IntegrationEvent;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /v1/inbox/events}: the relay's deliveries (role relay). */
@Tag(name = "Inbox", description = "The relay's deliveries")
@RestController
class InboxController {

    private final DeliveryParser parser;
    private final InboxService inbox;

    InboxController(DeliveryParser parser, InboxService inbox) {
        this.parser = parser;
        this.inbox = inbox;
    }

    @Operation(operationId = "deliverEvents", summary = "Deliver events",
            description = "A batch of integration events in position order; each result says whether it was applied, "
                    + "a duplicate, parked or ignored. Role relay.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, description = "a batch of events",
            content = @Content(mediaType = "application/json", schema = @Schema(types = "object")))
    @PostMapping("/v1/inbox/events")
    DeliveryAnswer deliver(@RequestBody byte[] body) {
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
        List<DeliveryResult> results = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            IntegrationEvent e = events.get(i);
            results.add(new DeliveryResult(e.position(), e.epoch(), d.outcomes().get(i).name()));
        }
        return new DeliveryAnswer(results, d.cursor().appliedPosition(), d.cursor().epoch());
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
