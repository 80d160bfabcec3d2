package com.acme.catalog.resolver.web;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * {@code resolver_unavailable_answers_total{code}}: requests this instance answered 503, by problem code, per
 * instance (no stream labels). The 503 codes are what an operator tells apart in an incident:
 * {@code HISTORY_ROLLED_BACK} (a rollback or failover lost a tail; rotate), {@code OUTCOME_UNKNOWN} (commits whose
 * connection was lost, e.g. in a database failover; writers retry with their key), {@code DATABASE_UNAVAILABLE},
 * {@code STREAM_FENCED}, {@code CONTROL_STORE_UNAVAILABLE}, {@code MAINTENANCE}. {@code http_server_requests} has
 * the status but not the code. Every 503 code is registered at 0 at start.
 *
 * <p>The code is read from the exception the dispatcher exposes after an exception handler answered it
 * ({@link DispatcherServlet#EXCEPTION_ATTRIBUTE}); a 503 without an {@link ApiException} is the handler's
 * {@code DATABASE_UNAVAILABLE} (the only 503 it makes from another exception).
 */
@Component
class UnavailableAnswers extends OncePerRequestFilter {

    private final Map<ProblemCode, Counter> counters = new EnumMap<>(ProblemCode.class);

    UnavailableAnswers(MeterRegistry registry) {
        for (ProblemCode code : ProblemCode.values()) {
            if (code.status() == 503) {
                counters.put(code, Counter.builder("resolver.unavailable.answers")
                        .description("requests answered 503, by problem code")
                        .tag("code", code.name()).register(registry));
            }
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (response.getStatus() == 503) {
                Counter c = counters.get(code(request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE)));
                if (c != null) {
                    c.increment();
                }
            }
        }
    }

    private static ProblemCode code(Object exception) {
        return exception instanceof ApiException api ? api.code() : ProblemCode.DATABASE_UNAVAILABLE;
    }
}
