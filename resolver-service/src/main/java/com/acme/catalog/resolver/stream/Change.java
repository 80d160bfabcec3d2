package com.acme.catalog.resolver.stream;

import com.acme.catalog.contracts.AggregateType;

import java.util.List;

import com.acme.catalog.contracts.AggregateIds;

import tools.jackson.databind.JsonNode;

/** One change to accepted state; a logical transaction is an ordered list of them. */
public sealed interface Change {

    String aggregateType();

    String aggregateId();

    record UpsertItem(String itemId, JsonNode attributes, Integer expectedRevision) implements Change {
        public String aggregateType() {
            return AggregateType.ITEM.wire();
        }

        public String aggregateId() {
            return itemId;
        }
    }

    record DeleteItem(String itemId, Integer expectedRevision) implements Change {
        public String aggregateType() {
            return AggregateType.ITEM.wire();
        }

        public String aggregateId() {
            return itemId;
        }
    }

    record UpsertMapping(String mappingId, String source, String target) implements Change {
        public String aggregateType() {
            return AggregateType.MAPPING.wire();
        }

        public String aggregateId() {
            return mappingId;
        }
    }

    record UpsertPolicy(String policyId, JsonNode rules) implements Change {
        public String aggregateType() {
            return AggregateType.POLICY.wire();
        }

        public String aggregateId() {
            return policyId;
        }
    }

    record PutRelease(String releaseId, String visibility, List<ItemRef> items) implements Change {
        public String aggregateType() {
            return AggregateType.RELEASE.wire();
        }

        public String aggregateId() {
            return releaseId;
        }
    }

    /**
     * The {@code DecisionRecorded} event of a review decision, in the logical transaction that applies the decision's
     * changes: one outbox row (aggregate {@code decision}, revision 1, no dependencies), no accepted-state row. Made
     * only by the resolver's review code, never parsed from a request.
     */
    record RecordDecision(String decisionId, JsonNode payload) implements Change {
        public RecordDecision {
            AggregateIds.require("decisionId", decisionId);
            if (payload == null || !payload.isObject()) {
                throw new IllegalArgumentException("a DecisionRecorded payload is a JSON object");
            }
        }

        public String aggregateType() {
            return AggregateType.DECISION.wire();
        }

        public String aggregateId() {
            return decisionId;
        }
    }

    /** An item revision named by a release. */
    record ItemRef(String itemId, int revision) {
    }
}
