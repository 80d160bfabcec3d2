package com.acme.catalog.platform.web;

import java.io.IOException;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/** Authenticates {@code Authorization: Bearer <token>} against the configured tokens. */
public final class BearerTokenFilter extends OncePerRequestFilter {

    private final SecurityTokens tokens;

    public BearerTokenFilter(SecurityTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            tokens.authenticate(header.substring(7).trim()).ifPresent(caller -> {
                List<SimpleGrantedAuthority> authorities =
                        caller.roles().stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList();
                SecurityContextHolder.getContext()
                        .setAuthentication(new UsernamePasswordAuthenticationToken(caller, null, authorities));
            });
        }
        chain.doFilter(request, response);
    }
}
