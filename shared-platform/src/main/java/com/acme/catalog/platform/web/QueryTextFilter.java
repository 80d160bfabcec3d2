package com.acme.catalog.platform.web;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import com.acme.catalog.contracts.JsonLimits;
import com.acme.catalog.contracts.ProblemCode;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.ObjectMapper;

/**
 * The text rule of {@link JsonLimits} on the query string: a {@code %00} (or an encoded unpaired surrogate) in any
 * parameter is 400 {@code INVALID_BODY} before any controller runs (PostgreSQL cannot compare with U+0000: a
 * {@code search?q=%00} was a 500). Reads only the raw query string, never a form body.
 */
public final class QueryTextFilter extends OncePerRequestFilter {

    private final ObjectMapper json;

    public QueryTextFilter(ObjectMapper json) {
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String query = request.getQueryString();
        if (query != null && query.indexOf('%') >= 0) {
            String problem;
            try {
                problem = JsonLimits.textProblem(URLDecoder.decode(query, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException malformed) {
                problem = null; // a broken escape: the container's own parameter parsing judges it
            }
            if (problem != null) {
                Problems.write(response, json, ProblemCode.INVALID_BODY, "the query string " + problem,
                        request.getRequestURI());
                return;
            }
        }
        chain.doFilter(request, response);
    }
}
