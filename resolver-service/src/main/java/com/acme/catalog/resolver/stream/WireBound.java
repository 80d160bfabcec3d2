package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.JsonLimits;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An upper bound of the wire a change becomes, known before the change is written (the bootstrap import checks it
 * in its validation pass, before the first chunk commits). {@link EventAppender} measures the real wire.
 */
public final class WireBound {

    /**
     * The envelope without payload and dependencies, every variable member at its longest (63-character tenant and
     * catalog, 128-character aggregate id, 19-digit numbers, a 30-character timestamp), rounded up.
     */
    public static final int ENVELOPE_BYTES = 1_024;
    /** One dependency without its aggregate id: {@code {"aggregateType":"release","aggregateId":"","revision":n},}. */
    static final int DEPENDENCY_BYTES = 72;

    private WireBound() {
    }

    /** @return at least the UTF-8 size of the wire {@code change} becomes, at any position and revision */
    public static long of(Change change) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        long dependencies = DEPENDENCY_BYTES + change.aggregateId().length(); // the previous revision
        if (change instanceof Change.UpsertItem c) {
            payload.set("attributes", c.attributes());
        } else if (change instanceof Change.UpsertMapping c) {
            payload.put("source", c.source()).put("target", c.target());
        } else if (change instanceof Change.UpsertPolicy c) {
            payload.set("rules", c.rules());
        } else if (change instanceof Change.PutRelease c) {
            payload.put("visibility", c.visibility());
            var items = payload.putArray("items");
            for (Change.ItemRef ref : c.items()) {
                items.addObject().put("itemId", ref.itemId()).put("revision", Integer.MAX_VALUE);
                dependencies += DEPENDENCY_BYTES + ref.itemId().length();
            }
        }
        return ENVELOPE_BYTES + dependencies + JsonLimits.utf8Length(payload.toString());
    }
}
