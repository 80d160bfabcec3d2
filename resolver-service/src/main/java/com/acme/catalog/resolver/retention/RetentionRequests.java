package com.acme.catalog.resolver.retention;

import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.json.StrictJson;
import com.acme.catalog.contracts.retention.ConsumerRegistrationRequest;
import com.acme.catalog.contracts.retention.LeaseRenewal;
import com.acme.catalog.contracts.retention.LeaseRequest;
import com.acme.catalog.contracts.retention.ProgressRequest;
import com.acme.catalog.contracts.retention.PruneRequest;

import tools.jackson.databind.JsonNode;

/**
 * Validates retention request bodies (binding them to their contract records, which check themselves) and path
 * ids; anything off is 400 before anything is read or locked. Bodies are bound here, after the controller checked
 * the caller's role, so a caller without the role learns nothing about the body's rules.
 */
final class RetentionRequests {

    static final int MAX_URL_LENGTH = ConsumerRegistrationRequest.MAX_URL_LENGTH;
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private RetentionRequests() {
    }

    static ConsumerRegistrationRequest registration(JsonNode body) {
        return StrictJson.bind(body, ConsumerRegistrationRequest.class, "");
    }

    static ProgressRequest progress(JsonNode body) {
        return StrictJson.bind(body, ProgressRequest.class, "");
    }

    static LeaseRequest newLease(JsonNode body) {
        return StrictJson.bind(body, LeaseRequest.class, "");
    }

    static Duration ttl(JsonNode body) {
        return StrictJson.bind(body, LeaseRenewal.class, "").ttl();
    }

    /** The prune filter of a body that may be absent or JSON {@code null} (every stream). */
    static PruneRequest prune(JsonNode body) {
        return body == null || body.isNull() || body.isMissingNode() ? PruneRequest.ALL
                : StrictJson.bind(body, PruneRequest.class, "");
    }

    static String consumerId(String value) {
        return AggregateIds.require("consumerId", value);
    }

    static UUID leaseId(String value) {
        if (value == null || !UUID_TEXT.matcher(value).matches()) {
            throw new InvalidIdException("leaseId", value, "must be a UUID");
        }
        return UUID.fromString(value);
    }

    /** An optional query parameter naming an epoch. */
    static Long optionalEpoch(String value) {
        if (value == null) {
            return null;
        }
        try {
            long e = Long.parseLong(value);
            if (e >= 1) {
                return e;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw invalid("epoch must be an integer >= 1");
    }

    /** An optional tenant / catalog filter; a catalog needs its tenant. */
    static void filter(String tenant, String catalog) {
        new PruneRequest(tenant, catalog);
    }

    private static ApiException invalid(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }
}
