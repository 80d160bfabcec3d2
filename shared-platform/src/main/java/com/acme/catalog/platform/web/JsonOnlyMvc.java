package com.acme.catalog.platform.web;

import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpEntity;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * The APIs answer JSON only. No XML converter is offered even when one is on the class path (a test dependency
 * brings one), and a request to a JSON endpoint whose {@code Accept} allows neither {@code application/json} nor
 * {@code application/problem+json} is refused with 406 {@code NOT_ACCEPTABLE} <em>before</em> the handler runs, so
 * a write is never committed and then answered 406. Endpoints that answer bytes of their own type (an evidence
 * artifact, catch-up pages) negotiate nothing and are left alone.
 */
final class JsonOnlyMvc implements WebMvcConfigurer {

    private static final List<MediaType> JSON = List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_PROBLEM_JSON);

    @Override
    public void extendMessageConverters(List<HttpMessageConverter<?>> converters) {
        converters.removeIf(c -> c.getSupportedMediaTypes().stream()
                .anyMatch(t -> t.getSubtype().equals("xml") || t.getSubtype().endsWith("+xml")));
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new HandlerInterceptor() {
            @Override
            public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
                    throws HttpMediaTypeNotAcceptableException {
                if (handler instanceof HandlerMethod method && answersJson(method)) {
                    requireJsonAccepted(request.getHeader("Accept"));
                }
                return true;
            }
        });
    }

    private static boolean answersJson(HandlerMethod method) {
        ResolvableType type = ResolvableType.forMethodReturnType(method.getMethod());
        if (HttpEntity.class.isAssignableFrom(type.toClass())) {
            type = type.getGeneric(0);
        }
        Class<?> body = type.toClass();
        return !(body == byte[].class || Resource.class.isAssignableFrom(body)
                || StreamingResponseBody.class.isAssignableFrom(body));
    }

    static void requireJsonAccepted(String accept) throws HttpMediaTypeNotAcceptableException {
        if (accept == null || accept.isBlank()) {
            return;
        }
        List<MediaType> accepted;
        try {
            accepted = MediaType.parseMediaTypes(accept);
        } catch (RuntimeException malformed) {
            throw new HttpMediaTypeNotAcceptableException(JSON);
        }
        for (MediaType a : accepted) {
            for (MediaType j : JSON) {
                if (a.isCompatibleWith(j) && a.getQualityValue() > 0) {
                    return;
                }
            }
        }
        throw new HttpMediaTypeNotAcceptableException(JSON);
    }
}
