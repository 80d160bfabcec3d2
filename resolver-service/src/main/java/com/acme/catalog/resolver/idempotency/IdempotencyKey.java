package com.acme.catalog.resolver.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import jakarta.servlet.http.HttpServletRequest;

/**
 * An {@code Idempotency-Key} sent with a write: the key, the token identity that sent it (keys of different
 * identities never meet) and the fingerprint of the request it came with (SHA-256 of method, path, query and body,
 * hex), which a retry must match.
 *
 * @param identity    the caller's token identity ({@code #name} of {@code SECURITY_TOKENS})
 * @param value       the header's value: 1 to 128 printable ASCII characters
 * @param fingerprint the request's SHA-256, 64 hex digits
 */
public record IdempotencyKey(String identity, String value, String fingerprint) {

    public static final String HEADER = "Idempotency-Key";
    static final int MAX_LENGTH = 128;

    public IdempotencyKey {
        if (identity == null || fingerprint == null || fingerprint.length() != 64) {
            throw new IllegalArgumentException("an idempotency key needs an identity and a SHA-256 fingerprint");
        }
        requireValid(value);
    }

    /**
     * The request's key, if it sent one.
     *
     * @param body the body as the resolver understood it (serialized again, so the fingerprint does not depend on
     *             white space), null when the request has none; only asked for when the request has a key
     * @return null when the request has no {@code Idempotency-Key} header
     * @throws ApiException 400 {@code INVALID_IDEMPOTENCY_KEY} when the header is sent twice or is not 1 to 128
     *                      printable ASCII characters (checked before anything is written)
     */
    public static IdempotencyKey of(HttpServletRequest request, String identity, Supplier<byte[]> body) {
        List<String> values = Collections.list(request.getHeaders(HEADER));
        if (values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new ApiException(ProblemCode.INVALID_IDEMPOTENCY_KEY, HEADER + " must be sent once");
        }
        String value = values.get(0);
        requireValid(value);
        return new IdempotencyKey(identity, value, fingerprint(request, body.get()));
    }

    private static void requireValid(String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new ApiException(ProblemCode.INVALID_IDEMPOTENCY_KEY,
                    HEADER + " must be 1 to " + MAX_LENGTH + " printable ASCII characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new ApiException(ProblemCode.INVALID_IDEMPOTENCY_KEY,
                        HEADER + " must be 1 to " + MAX_LENGTH + " printable ASCII characters; character " + i
                                + " is not");
            }
        }
    }

    /** SHA-256 of method, path, query and body, each part length-prefixed so no two requests run together. */
    static String fingerprint(HttpServletRequest request, byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {request.getMethod(), request.getRequestURI(),
                    request.getQueryString() == null ? "" : request.getQueryString()}) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                sha.update(bytes);
            }
            byte[] b = body == null ? new byte[0] : body;
            sha.update((b.length + ":").getBytes(StandardCharsets.US_ASCII));
            sha.update(b);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /** The refusal of this key for a request other than the one it was first used with. */
    public ApiException reused() {
        return new ApiException(ProblemCode.IDEMPOTENCY_KEY_REUSED, HEADER + " '" + value
                + "' was used before for another request (body, path or method) by this identity; use a new key");
    }
}
