package com.acme.catalog.product.inbox;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.EventType;
import com.acme.catalog.product.inbox.DeliveryParser.BadEvent;

import tools.jackson.databind.JsonNode;

/** What each projected event type's payload must hold, checked before anything of a delivery is applied. */
final class PayloadRules {

    private PayloadRules() {
    }

    static void check(EventType type, JsonNode payload) {
        switch (type) {
            case ItemUpserted -> requireObject(payload, "attributes");
            case MappingUpserted -> {
                DeliveryParser.text(payload, "source");
                DeliveryParser.text(payload, "target");
            }
            case PolicyUpserted -> requireObject(payload, "rules");
            case ReleasePublished -> release(payload);
            default -> {
                // ItemDeleted carries nothing; DecisionRecorded is not projected
            }
        }
    }

    private static void release(JsonNode payload) {
        String visibility = DeliveryParser.text(payload, "visibility");
        if (!visibility.equals("PUBLIC") && !visibility.equals("PRIVATE")) {
            throw new BadEvent("payload.visibility must be PUBLIC or PRIVATE");
        }
        JsonNode items = payload.get("items");
        if (items == null || !items.isArray()) {
            throw new BadEvent("payload.items must be an array");
        }
        for (JsonNode ref : items) {
            if (!ref.isObject()) {
                throw new BadEvent("payload.items[] must be objects");
            }
            AggregateIds.require("payload.items[].itemId", DeliveryParser.text(ref, "itemId"));
            DeliveryParser.revision(ref, "revision");
        }
    }

    private static void requireObject(JsonNode payload, String field) {
        JsonNode v = payload.get(field);
        if (v == null || !v.isObject()) {
            throw new BadEvent("payload." + field + " must be a JSON object");
        }
    }
}
