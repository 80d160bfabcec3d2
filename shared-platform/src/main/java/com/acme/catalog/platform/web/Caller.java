package com.acme.catalog.platform.web;

import java.util.Set;

/**
 * Who is calling: the roles of their token and the tenants it is limited to ({@code tenants} empty means
 * every tenant).
 */
public record Caller(String name, Set<Role> roles, Set<String> tenants) {

    public Caller {
        roles = Set.copyOf(roles);
        tenants = Set.copyOf(tenants);
    }

    public boolean has(Role role) {
        return roles.contains(role);
    }

    public boolean mayAccess(String tenant) {
        return tenants.isEmpty() || tenants.contains(tenant);
    }
}
