package com.acme.catalog.contracts.retention;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

/** The checks the retention request records share; each failure is 400 {@code INVALID_BODY} naming the field. */
final class RetentionRules {

    private RetentionRules() {
    }

    static long epoch(Long epoch) {
        if (epoch == null || epoch < 1) {
            throw invalid("epoch must be an integer >= 1");
        }
        return epoch;
    }

    static long nonNegative(String field, Long value) {
        if (value == null || value < 0) {
            throw invalid(field + " must be an integer >= 0");
        }
        return value;
    }

    static long ttlSeconds(Long ttlSeconds) {
        if (ttlSeconds == null || ttlSeconds < 1) {
            throw invalid("ttlSeconds must be an integer >= 1");
        }
        if (ttlSeconds > Duration.ofDays(36_500).toSeconds()) {
            throw invalid("ttlSeconds is far too large");
        }
        return ttlSeconds;
    }

    static String deliveryUrl(String url) {
        if (url == null) {
            return null;
        }
        if (url.length() > ConsumerRegistrationRequest.MAX_URL_LENGTH) {
            throw invalid("deliveryUrl must be an absolute http(s) URL of at most "
                    + ConsumerRegistrationRequest.MAX_URL_LENGTH + " characters");
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
            if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
                return url;
            }
        } catch (URISyntaxException e) {
            // answered below
        }
        throw invalid("deliveryUrl must be an absolute http(s) URL");
    }

    static ApiException invalid(String message) {
        return new ApiException(ProblemCode.INVALID_BODY, message);
    }
}
