package com.acme.catalog.platform.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import com.acme.catalog.contracts.ProblemCode;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.ObjectMapper;

/** RFC 9457 problem bodies with the contract's stable {@code code} member. */
public final class Problems {

    public static final MediaType PROBLEM_JSON = MediaType.APPLICATION_PROBLEM_JSON;

    private Problems() {
    }

    public static Map<String, Object> body(ProblemCode code, String detail, String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "urn:problem:" + code.name().toLowerCase().replace('_', '-'));
        body.put("title", code.name());
        body.put("status", code.status());
        body.put("code", code.name());
        body.put("detail", detail);
        if (instance != null) {
            body.put("instance", instance);
        }
        return body;
    }

    public static ResponseEntity<Map<String, Object>> response(ProblemCode code, String detail, String instance) {
        return ResponseEntity.status(code.status()).contentType(PROBLEM_JSON).body(body(code, detail, instance));
    }

    /** For filters that answer before the dispatcher servlet. */
    public static void write(HttpServletResponse response, ObjectMapper json, ProblemCode code, String detail,
            String instance) throws IOException {
        response.setStatus(code.status());
        response.setContentType(PROBLEM_JSON.toString());
        json.writeValue(response.getOutputStream(), body(code, detail, instance));
    }
}
