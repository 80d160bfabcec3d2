package com.acme.catalog.platform.web;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The configured bearer tokens: {@code secret=role[,role…][@tenant[,tenant…]]} entries joined by {@code ;},
 * e.g. {@code op=operator;w=writer@acme;r=relay;c=consumer}. An entry may end in {@code #name}: the token's
 * identity, which owns the consumers and leases it creates (docs/retention.md); two secrets with one name are one
 * owner (rotation). Without a name the identity is derived from the secret, never from the entry's position.
 * Duplicate secrets and an empty tenant list ({@code x=consumer@}) are refused.
 */
public final class SecurityTokens {

    /** Derived identities (and the position-based names of old releases) start with this; names may not. */
    public static final String DERIVED_PREFIX = "token-";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final Map<String, Caller> bySecret;
    private final List<Caller> inOrder;

    private SecurityTokens(Map<String, Caller> bySecret, List<Caller> inOrder) {
        this.bySecret = Map.copyOf(bySecret);
        this.inOrder = List.copyOf(inOrder);
    }

    public static SecurityTokens parse(String spec) {
        Map<String, Caller> map = new HashMap<>();
        List<Caller> inOrder = new ArrayList<>();
        if (spec == null || spec.isBlank()) {
            return new SecurityTokens(map, inOrder);
        }
        Map<String, Integer> entryOf = new HashMap<>();
        int n = 0;
        for (String entry : spec.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            n++;
            int eq = entry.indexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new IllegalArgumentException("SECURITY_TOKENS entry " + n + " is not secret=role[,role][@tenant]");
            }
            String secret = entry.substring(0, eq).trim();
            String rest = entry.substring(eq + 1);
            String name = null;
            int hash = rest.indexOf('#');
            if (hash >= 0) {
                name = rest.substring(hash + 1).trim();
                rest = rest.substring(0, hash);
                if (!NAME.matcher(name).matches() || name.startsWith(DERIVED_PREFIX)) {
                    throw new IllegalArgumentException("SECURITY_TOKENS entry " + n + ": the name after # must be "
                            + "1-64 characters of [A-Za-z0-9._-], not starting with " + DERIVED_PREFIX);
                }
            }
            int at = rest.indexOf('@');
            String rolePart = at < 0 ? rest : rest.substring(0, at);
            Set<Role> roles = new HashSet<>();
            for (String r : rolePart.split(",")) {
                roles.add(Role.parse(r));
            }
            Set<String> tenants = new HashSet<>();
            if (at >= 0) {
                Arrays.stream(rest.substring(at + 1).split(",")).map(String::trim).filter(t -> !t.isEmpty())
                        .forEach(tenants::add);
                if (tenants.isEmpty()) {
                    // an empty list would read as "every tenant": the opposite of what a trailing @ suggests
                    throw new IllegalArgumentException("SECURITY_TOKENS entry " + n + " has an empty tenant list "
                            + "after @: name the tenants, or drop the @ for a token of every tenant");
                }
            }
            Integer earlier = entryOf.putIfAbsent(secret, n);
            if (earlier != null) {
                throw new IllegalArgumentException("SECURITY_TOKENS entries " + earlier + " and " + n
                        + " have the same secret: every secret must be distinct");
            }
            Caller caller = new Caller(name != null ? name : identity(secret), roles, tenants);
            map.put(secret, caller);
            inOrder.add(caller);
        }
        return new SecurityTokens(map, inOrder);
    }

    /**
     * The owner identity of a token without a {@code #name}: derived from its secret alone (not from its place in
     * the list, so reordering SECURITY_TOKENS moves nothing), and slow to invert, since it is stored and shown to
     * operators.
     */
    static String identity(String secret) {
        try {
            SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            byte[] key = f.generateSecret(new PBEKeySpec(secret.toCharArray(),
                    "catalog-token-identity-v1".getBytes(StandardCharsets.UTF_8), 20_000, 64)).getEncoded();
            return DERIVED_PREFIX + HexFormat.of().formatHex(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
        }
    }

    /** Looks a presented secret up in constant time per configured token. */
    public Optional<Caller> authenticate(String presented) {
        if (presented == null) {
            return Optional.empty();
        }
        byte[] p = presented.getBytes(StandardCharsets.UTF_8);
        Caller found = null;
        for (Map.Entry<String, Caller> e : bySecret.entrySet()) {
            if (MessageDigest.isEqual(p, e.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = e.getValue();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * The names releases before identities gave tokens ({@code token-1}, {@code token-2}, … by position in this
     * list) mapped to each entry's identity now: for a one-time adoption of what they own (docs/retention.md).
     */
    public Map<String, String> positionalNames() {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < inOrder.size(); i++) {
            out.put(DERIVED_PREFIX + (i + 1), inOrder.get(i).name());
        }
        return out;
    }

    public List<Caller> callers() {
        return List.copyOf(bySecret.values());
    }
}
