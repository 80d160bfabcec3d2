package com.acme.catalog.contracts.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The configured bearer tokens: {@code secret=role[,role…][@tenant[,tenant…]]} entries joined by {@code ;},
 * e.g. {@code op=operator;w=writer@acme;r=relay;c=consumer}.
 */
public final class SecurityTokens {

    private final Map<String, Caller> bySecret;

    private SecurityTokens(Map<String, Caller> bySecret) {
        this.bySecret = Map.copyOf(bySecret);
    }

    public static SecurityTokens parse(String spec) {
        Map<String, Caller> map = new HashMap<>();
        if (spec == null || spec.isBlank()) {
            return new SecurityTokens(map);
        }
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
            }
            map.put(secret, new Caller("token-" + n, roles, tenants));
        }
        return new SecurityTokens(map);
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

    public List<Caller> callers() {
        return List.copyOf(bySecret.values());
    }
}
