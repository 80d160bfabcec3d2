package com.acme.catalog.resolver.stream;

import java.util.Map;

import com.acme.catalog.platform.web.Problems;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The problem of a {@link WriteBlockedException}, whichever controller's write met it: the shared problem body plus
 * {@code location} (a move's target, where the stream lives now) and {@code since}. Ahead of the shared handler of
 * every {@code ApiException}, which would answer the same without the two members.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class WriteBlockedAdvice {

    @ExceptionHandler(WriteBlockedException.class)
    ResponseEntity<Map<String, Object>> blocked(WriteBlockedException e, HttpServletRequest request) {
        Map<String, Object> body = Problems.body(e.code(), e.getMessage(), request.getRequestURI());
        if (e.location() != null) {
            body.put("location", e.location());
        }
        if (e.since() != null) {
            body.put("since", e.since().toString());
        }
        return ResponseEntity.status(e.code().status()).contentType(Problems.PROBLEM_JSON).body(body);
    }
}
