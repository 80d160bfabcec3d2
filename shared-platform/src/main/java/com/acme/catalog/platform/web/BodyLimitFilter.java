package com.acme.catalog.platform.web;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.ProblemCode;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.ObjectMapper;

/**
 * Caps request bodies: a declared length over the cap is refused before reading, and a streamed body is cut
 * off when it passes the cap ({@link PayloadTooLargeException}, answered 413 {@code PAYLOAD_TOO_LARGE}).
 * A path equal to a key of {@code overrides} gets its own cap; a {@link RouteLimit} caps one exact route by
 * pattern (the bootstrap import, evidence intake, the product's inbox). Nothing matches by prefix or suffix: a
 * writer's {@code PUT …/items/bootstrap-import} has the default cap.
 */
public final class BodyLimitFilter extends OncePerRequestFilter {

    private final long defaultLimit;
    private final Map<String, Long> overrides;
    private final List<RouteLimit> routes;
    private final ObjectMapper json;

    public BodyLimitFilter(long defaultLimit, Map<String, Long> overrides, ObjectMapper json) {
        this(defaultLimit, overrides, List.of(), json);
    }

    /** With caps of exact routes that services contribute ({@link RouteLimit} beans), checked first. */
    public BodyLimitFilter(long defaultLimit, Map<String, Long> overrides, List<RouteLimit> routes,
            ObjectMapper json) {
        this.defaultLimit = defaultLimit;
        this.overrides = Map.copyOf(overrides);
        this.routes = List.copyOf(routes);
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long limit = limitFor(request.getRequestURI());
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            Problems.write(response, json, ProblemCode.PAYLOAD_TOO_LARGE,
                    "request body of %d bytes exceeds the limit of %d bytes".formatted(declared, limit),
                    request.getRequestURI());
            return;
        }
        chain.doFilter(new Limited(request, limit), response);
    }

    private long limitFor(String path) {
        for (RouteLimit r : routes) {
            if (r.path().matcher(path).matches()) {
                return r.limit();
            }
        }
        Long exact = overrides.get(path);
        if (exact != null) {
            return exact;
        }
        return defaultLimit;
    }

    /**
     * The body cap of one route a service owns (the resolver's evidence intake): {@code path} must match the whole
     * request path. Declared as a bean; {@link SharedWebConfiguration} hands every one to the filter.
     */
    public record RouteLimit(Pattern path, long limit) {

        public RouteLimit {
            if (path == null || limit < 1) {
                throw new IllegalArgumentException("a route limit needs a path pattern and a limit >= 1");
            }
        }
    }

    /** Thrown while reading a body that passes the cap. */
    public static final class PayloadTooLargeException extends IOException {
        public PayloadTooLargeException(long limit) {
            super("request body exceeds the limit of " + limit + " bytes");
        }
    }

    private static final class Limited extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream stream;

        Limited(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new CountingStream(super.getInputStream(), limit);
            }
            return stream;
        }
    }

    private static final class CountingStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long count;

        CountingStream(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                add(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = in.read(buf, off, len);
            if (n > 0) {
                add(n);
            }
            return n;
        }

        private void add(int n) throws IOException {
            count += n;
            if (count > limit) {
                throw new PayloadTooLargeException(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
