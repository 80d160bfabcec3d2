package com.acme.catalog.platform.web;

import java.lang.reflect.Type;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;

import com.acme.catalog.contracts.JsonLimits;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;
import tools.jackson.databind.JsonNode;

/**
 * The text rule of {@link JsonLimits} on every JSON request body of both services, before a controller sees it:
 * a {@code U+0000} or an unpaired surrogate in any member name or string (of a {@link JsonNode} body, or of a
 * request record's string components, lists and maps) is 400 {@code INVALID_BODY} and nothing is written.
 */
@ControllerAdvice
public class CleanTextBodyAdvice extends RequestBodyAdviceAdapter {

    @Override
    public boolean supports(MethodParameter parameter, Type targetType,
            Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public Object afterBodyRead(Object body, HttpInputMessage inputMessage, MethodParameter parameter,
            Type targetType, Class<? extends HttpMessageConverter<?>> converterType) {
        check(body, 0);
        return body;
    }

    private static void check(Object value, int depth) {
        if (value == null || depth > 16) {
            return;
        }
        if (value instanceof JsonNode node) {
            JsonLimits.checkText("body", node);
        } else if (value instanceof CharSequence s) {
            JsonLimits.requireCleanText("a string of the body", s.toString());
        } else if (value instanceof Collection<?> c) {
            for (Object o : c) {
                check(o, depth + 1);
            }
        } else if (value instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                check(e.getKey(), depth + 1);
                check(e.getValue(), depth + 1);
            }
        } else if (value.getClass().isRecord()) {
            for (RecordComponent rc : value.getClass().getRecordComponents()) {
                try {
                    check(rc.getAccessor().invoke(value), depth + 1);
                } catch (ReflectiveOperationException e) {
                    // an inaccessible component: the record's own rules judge it
                }
            }
        }
    }
}
