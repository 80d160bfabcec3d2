package com.acme.catalog.resolver.retention;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.AggregateIds;
import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;

import tools.jackson.databind.JsonNode;

/** Validates retention request bodies and path ids; anything off is 400 before anything is read or locked. */
final class RetentionRequests {

    static final int MAX_URL_LENGTH = 2048;
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private RetentionRequests() {
    }

    record Registration(String consumerId, StreamId stream, long epoch, String deliveryUrl) {
    }

    record Progress(StreamId stream, long epoch, long position) {
    }

    record NewLease(StreamId stream, long epoch, Duration ttl, String owner) {
    }

    static Registration registration(JsonNode body) {
        requireObject(body);
        String consumerId = consumerId(text(body, "consumerId"));
        return new Registration(consumerId, stream(body), epoch(body), deliveryUrl(body.get("deliveryUrl")));
    }

    static Progress progress(JsonNode body) {
        requireObject(body);
        StreamId stream = stream(body);
        return new Progress(stream, epoch(body), nonNegative(body, "position"));
    }

    static NewLease newLease(JsonNode body) {
        requireObject(body);
        StreamId stream = stream(body);
        long epoch = epoch(body);
        Duration ttl = ttl(body);
        String owner = text(body, "owner");
        RetentionService.requireOwner(owner);
        return new NewLease(stream, epoch, ttl, owner);
    }

    static Duration ttl(JsonNode body) {
        requireObject(body);
        JsonNode n = body.get("ttlSeconds");
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 1) {
            throw invalid("ttlSeconds must be an integer >= 1");
        }
        if (n.longValue() > Duration.ofDays(36_500).toSeconds()) {
            throw invalid("ttlSeconds is far too large");
        }
        return Duration.ofSeconds(n.longValue());
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
        if (tenant != null) {
            StreamId.requirePart("tenant", tenant);
        }
        if (catalog != null) {
            if (tenant == null) {
                throw invalid("catalog needs tenant");
            }
            StreamId.requirePart("catalog", catalog);
        }
    }

    static String optionalText(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isString()) {
            throw invalid(field + " must be a string");
        }
        return n.stringValue();
    }

    private static StreamId stream(JsonNode body) {
        return new StreamId(text(body, "tenant"), text(body, "catalog"));
    }

    private static long epoch(JsonNode body) {
        JsonNode n = body.get("epoch");
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 1) {
            throw invalid("epoch must be an integer >= 1");
        }
        return n.longValue();
    }

    private static long nonNegative(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0) {
            throw invalid(field + " must be an integer >= 0");
        }
        return n.longValue();
    }

    private static String deliveryUrl(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isString() || n.stringValue().length() > MAX_URL_LENGTH) {
            throw invalid("deliveryUrl must be an absolute http(s) URL of at most " + MAX_URL_LENGTH + " characters");
        }
        try {
            URI uri = new URI(n.stringValue());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
            if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
                return n.stringValue();
            }
        } catch (URISyntaxException e) {
            // answered below
        }
        throw invalid("deliveryUrl must be an absolute http(s) URL");
    }

    private static String text(JsonNode body, String field) {
        JsonNode n = body.get(field);
        return n != null && n.isString() ? n.stringValue() : null;
    }

    private static void requireObject(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw invalid("body must be a JSON object");
        }
    }

    private static ApiException invalid(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }
}
