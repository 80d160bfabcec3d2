package com.acme.catalog.contracts.epoch;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.json.StrictJson;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * The streams a fleet rotation rotates, exactly one of: {@code {"all":true}} (every stream the resolver's database or
 * the control store knows), {@code {"tenant":"t"}} (every stream of one tenant, likewise), or
 * {@code {"streams":[{"tenant","catalog"},…]}} (1 to {@value #MAX_STREAMS} named streams; repeats count once).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RotationScope(@JsonDeserialize(using = StrictJson.Flag.class) Boolean all,
        @JsonDeserialize(using = StrictJson.TextOrNull.class) String tenant, List<StreamRef> streams) {

    /** Most streams one request may name; rotate more with a tenant or all scope. */
    public static final int MAX_STREAMS = 10_000;

    public RotationScope {
        int given = (all != null ? 1 : 0) + (tenant != null ? 1 : 0) + (streams != null ? 1 : 0);
        if (given != 1) {
            throw new IllegalArgumentException("scope must be exactly one of {\"all\":true}, {\"tenant\":\"…\"} or "
                    + "{\"streams\":[{\"tenant\",\"catalog\"},…]}");
        }
        if (all != null && !all) {
            throw new IllegalArgumentException("scope {\"all\":false} names nothing; use {\"all\":true}");
        }
        if (tenant != null) {
            StreamId.requirePart("tenant", tenant);
        }
        if (streams != null) {
            if (streams.isEmpty() || streams.size() > MAX_STREAMS) {
                throw new IllegalArgumentException("scope.streams must name 1 to " + MAX_STREAMS + " streams");
            }
            if (streams.stream().anyMatch(Objects::isNull)) {
                throw new IllegalArgumentException("scope.streams must hold {\"tenant\",\"catalog\"} objects");
            }
            streams = List.copyOf(streams);
        }
    }

    /** Every stream. */
    public static RotationScope everything() {
        return new RotationScope(true, null, null);
    }

    /**
     * The same text for the same set of streams however it was written: {@code all}, {@code tenant:<t>}, or
     * {@code streams:<SHA-256 of the sorted, distinct tenant/catalog list>}.
     */
    @JsonIgnore
    public String key() {
        if (all != null) {
            return "all";
        }
        if (tenant != null) {
            return "tenant:" + tenant;
        }
        return "streams:" + sha256(String.join("\n", new TreeSet<>(named().stream().map(StreamId::toString)
                .toList())));
    }

    /** @return the named streams, distinct, in the order first named; empty for {@code all} and {@code tenant} */
    @JsonIgnore
    public List<StreamId> named() {
        return streams == null ? List.of() : streams.stream().map(StreamRef::stream).distinct().toList();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
