package com.acme.catalog.resolver.stream;

import java.util.List;

import tools.jackson.databind.JsonNode;

/** One change to accepted state; a logical transaction is an ordered list of them. */
public sealed interface Change {

    String aggregateType();

    String aggregateId();

    record UpsertItem(String itemId, JsonNode attributes, Integer expectedRevision) implements Change {
        public String aggregateType() {
            return "item";
        }

        public String aggregateId() {
            return itemId;
        }
    }

    record DeleteItem(String itemId, Integer expectedRevision) implements Change {
        public String aggregateType() {
            return "item";
        }

        public String aggregateId() {
            return itemId;
        }
    }

    record UpsertMapping(String mappingId, String source, String target) implements Change {
        public String aggregateType() {
            return "mapping";
        }

        public String aggregateId() {
            return mappingId;
        }
    }

    record UpsertPolicy(String policyId, JsonNode rules) implements Change {
        public String aggregateType() {
            return "policy";
        }

        public String aggregateId() {
            return policyId;
        }
    }

    record PutRelease(String releaseId, String visibility, List<ItemRef> items) implements Change {
        public String aggregateType() {
            return "release";
        }

        public String aggregateId() {
            return releaseId;
        }
    }

    /** An item revision named by a release. */
    record ItemRef(String itemId, int revision) {
    }
}
