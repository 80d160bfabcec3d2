package com.acme.catalog.resolver.outbox;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * {@code RELAY_ALLOWED_DELIVERY_URLS} ({@code relay.allowed-delivery-urls}): the comma-separated URL prefixes a
 * consumer's {@code deliveryUrl} must start with, since the relay sends its bearer token ({@code RELAY_TOKEN}) to
 * every delivery URL. Empty: no delivery URL is allowed (consumers may still register to pull). Checked at
 * registration (400 {@code DELIVERY_URL_NOT_ALLOWED}, nothing registered) and again before every delivery, so a
 * URL registered before the list existed or was narrowed is never sent the token.
 *
 * <p>A URL is allowed when it starts with a prefix (exactly, character by character), its host is the prefix's
 * host (so {@code http://product} does not admit {@code http://product.evil.example}), it has no user info and
 * its path has no {@code .} or {@code ..} segments. End a prefix with {@code /} to pin its port and path.
 */
@Component
public class DeliveryUrlAllowlist {

    private final List<Prefix> prefixes;

    public DeliveryUrlAllowlist(@Value("${relay.allowed-delivery-urls:}") String spec) {
        this.prefixes = parse(spec);
    }

    private record Prefix(String text, String host) {
    }

    static List<Prefix> parse(String spec) {
        List<Prefix> out = new ArrayList<>();
        if (spec == null) {
            return out;
        }
        for (String part : spec.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            String lower = p.toLowerCase(Locale.ROOT);
            int start = lower.startsWith("https://") ? 8 : lower.startsWith("http://") ? 7 : -1;
            if (start < 0) {
                throw new IllegalArgumentException("RELAY_ALLOWED_DELIVERY_URLS entries are http(s) URL prefixes, "
                        + "not '" + p + "'");
            }
            int end = start;
            while (end < p.length() && ":/?#".indexOf(p.charAt(end)) < 0) {
                end++;
            }
            String host = p.substring(start, end);
            if (host.isEmpty() || host.contains("@")) {
                throw new IllegalArgumentException("RELAY_ALLOWED_DELIVERY_URLS entry '" + p + "' must name a host "
                        + "(and no user info)");
            }
            out.add(new Prefix(p, host.toLowerCase(Locale.ROOT)));
        }
        return List.copyOf(out);
    }

    /** Whether the relay may deliver to (and so send its token to) {@code url}. */
    public boolean allows(String url) {
        if (url == null || prefixes.isEmpty()) {
            return false;
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return false;
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.isOpaque()) {
            return false;
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (!uri.normalize().getRawPath().equals(path)) { // dot segments
            return false;
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        for (Prefix p : prefixes) {
            if (url.startsWith(p.text()) && host.equals(p.host())) {
                return true;
            }
        }
        return false;
    }

    /**
     * @throws ApiException 400 {@code DELIVERY_URL_NOT_ALLOWED} when {@code url} is not null and not allowed
     */
    public void require(String url) {
        if (url != null && !allows(url)) {
            // the prefixes are not named: they are the operator's internal addresses
            throw new ApiException(ProblemCode.DELIVERY_URL_NOT_ALLOWED, prefixes.isEmpty()
                    ? "deliveryUrl is not allowed: RELAY_ALLOWED_DELIVERY_URLS is empty, so this resolver pushes to "
                            + "no consumer (register without deliveryUrl to pull)"
                    : "deliveryUrl is not allowed: it must start with one of the operator's "
                            + "RELAY_ALLOWED_DELIVERY_URLS");
        }
    }
}
