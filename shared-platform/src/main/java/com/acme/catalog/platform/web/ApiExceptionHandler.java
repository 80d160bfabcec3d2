package com.acme.catalog.platform.web;

import java.util.Map;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.InvalidIdException;
import com.acme.catalog.contracts.ProblemCode;

import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Maps every failure to problem+json once, with a contract code. */
@RestControllerAdvice
public class ApiExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler(ApiException.class)
    ResponseEntity<Map<String, Object>> api(ApiException e, HttpServletRequest req) {
        if (e.code().status() >= 500) {
            log.warn("{} {}: {} {}", req.getMethod(), req.getRequestURI(), e.code(), e.getMessage());
        }
        if (e.code() == ProblemCode.OUTCOME_UNKNOWN || e.code() == ProblemCode.PROJECTION_VERSION_NEWER) {
            // a retry with the write's Idempotency-Key learns the outcome; soon is fine, the commit has ended
            return ResponseEntity.status(e.code().status()).header("Retry-After", DATABASE_RETRY_AFTER_SECONDS)
                    .contentType(Problems.PROBLEM_JSON).body(Problems.body(e.code(), e.getMessage(),
                            req.getRequestURI()));
        }
        return Problems.response(e.code(), e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(InvalidIdException.class)
    ResponseEntity<Map<String, Object>> invalidId(InvalidIdException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.INVALID_ID, e.getMessage(), req.getRequestURI());
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<Map<String, Object>> unreadable(HttpMessageNotReadableException e, HttpServletRequest req) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BodyLimitFilter.PayloadTooLargeException tooLarge) {
                return Problems.response(ProblemCode.PAYLOAD_TOO_LARGE, tooLarge.getMessage(), req.getRequestURI());
            }
            // a request record's compact constructor refused a field: its own code and message
            if (t instanceof ApiException refused) {
                return Problems.response(refused.code(), refused.getMessage(), req.getRequestURI());
            }
            if (t instanceof InvalidIdException badId) {
                return Problems.response(ProblemCode.INVALID_ID, badId.getMessage(), req.getRequestURI());
            }
        }
        return Problems.response(ProblemCode.INVALID_BODY, "request body is not valid JSON of the expected shape",
                req.getRequestURI());
    }

    @ExceptionHandler(BodyLimitFilter.PayloadTooLargeException.class)
    ResponseEntity<Map<String, Object>> tooLarge(BodyLimitFilter.PayloadTooLargeException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.PAYLOAD_TOO_LARGE, e.getMessage(), req.getRequestURI());
    }

    // Spring's own messages name Java types ("for method parameter type Integer"): each detail is written here

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<Map<String, Object>> missing(MissingServletRequestParameterException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.INVALID_BODY, "query parameter " + e.getParameterName()
                + " is required", req.getRequestURI());
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<Map<String, Object>> mismatch(MethodArgumentTypeMismatchException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.INVALID_BODY, "parameter " + e.getName() + " has an invalid value",
                req.getRequestURI());
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<Map<String, Object>> unsupported(HttpMediaTypeNotSupportedException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.INVALID_BODY, "Content-Type " + e.getContentType()
                + " is not supported; send application/json", req.getRequestURI());
    }

    /**
     * An {@code Accept} without JSON (say {@code application/xml}): 406, the problem as problem+json all the same
     * (its content type is set on the response, so negotiation does not apply again). No stack trace: the client
     * asked for something this API does not make.
     */
    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<Map<String, Object>> notAcceptable(HttpMediaTypeNotAcceptableException e,
            HttpServletRequest req) {
        return Problems.response(ProblemCode.NOT_ACCEPTABLE, "this API answers application/json (and "
                + "application/problem+json); the request's Accept allows neither", req.getRequestURI());
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<Map<String, Object>> notFound(NoResourceFoundException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.NOT_FOUND, "no such resource", req.getRequestURI());
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<Map<String, Object>> method(HttpRequestMethodNotSupportedException e, HttpServletRequest req) {
        return Problems.response(ProblemCode.METHOD_NOT_ALLOWED, e.getMessage(), req.getRequestURI());
    }

    /**
     * Seconds a client is told to wait before retrying after {@link ProblemCode#DATABASE_UNAVAILABLE} or
     * {@link ProblemCode#OUTCOME_UNKNOWN}.
     */
    static final String DATABASE_RETRY_AFTER_SECONDS = "1";

    @ExceptionHandler(Exception.class)
    ResponseEntity<Map<String, Object>> unexpected(Exception e, HttpServletRequest req) {
        if (TransientDatabaseFailure.isTransient(e)) {
            // the database out of reach (lost or refused connection, a restart): retryable, not a bug; one line
            log.warn("{} {}: {} {}", req.getMethod(), req.getRequestURI(), ProblemCode.DATABASE_UNAVAILABLE,
                    rootMessage(e));
            return ResponseEntity.status(ProblemCode.DATABASE_UNAVAILABLE.status())
                    .header("Retry-After", DATABASE_RETRY_AFTER_SECONDS).contentType(Problems.PROBLEM_JSON)
                    .body(Problems.body(ProblemCode.DATABASE_UNAVAILABLE, "the database is unavailable (connection "
                            + "lost or refused, or the server restarting); retry later. A write in flight may or "
                            + "may not have been committed, never in part", req.getRequestURI()));
        }
        log.error("{} {} failed", req.getMethod(), req.getRequestURI(), e);
        return Problems.response(ProblemCode.INTERNAL, "internal error; see the service log", req.getRequestURI());
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        for (int depth = 0; depth < 32 && root.getCause() != null && root.getCause() != root; depth++) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e) : e.getClass().getSimpleName() + " caused by " + root;
    }
}
