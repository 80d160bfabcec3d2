package com.acme.catalog.platform.web;

import java.util.Arrays;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/** Role and tenant checks, called at the top of each protected controller method. */
public final class Access {

    private Access() {
    }

    /** @return the authenticated caller; 401 when there is none */
    public static Caller caller() {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth == null || !(auth.getPrincipal() instanceof Caller caller)) {
            throw new ApiException(ProblemCode.UNAUTHENTICATED, "a valid bearer token is required");
        }
        return caller;
    }

    /** Requires one of {@code roles}; 403 otherwise. */
    public static Caller require(Role... roles) {
        Caller caller = caller();
        for (Role r : roles) {
            if (caller.has(r)) {
                return caller;
            }
        }
        throw new ApiException(ProblemCode.FORBIDDEN, "this needs role " + Arrays.toString(roles).toLowerCase());
    }

    /** Requires one of {@code roles} and access to {@code tenant}; 403 otherwise. */
    public static Caller require(String tenant, Role... roles) {
        Caller caller = require(roles);
        if (!caller.mayAccess(tenant)) {
            throw new ApiException(ProblemCode.FORBIDDEN, "token is not allowed for tenant " + tenant);
        }
        return caller;
    }
}
