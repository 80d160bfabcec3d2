package com.acme.catalog.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A service's OpenAPI document as its {@code OpenApiIT} checks it: written to {@code target/openapi/<service>.json}
 * for the OpenAPI linter ({@code bin/lint-openapi.sh}, run by {@code .ci/run} after {@code mvn -B verify}), and held
 * to what any reader needs of it, so the build fails on a gap even without the linter.
 */
public final class OpenApiDocuments {

    private OpenApiDocuments() {
    }

    /** @return the document {@code text}, after writing it pretty-printed to {@code target/openapi/<service>.json} */
    public static JsonNode writeForTheLinter(String text, String service) {
        JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        JsonNode doc = mapper.readTree(text);
        Path out = Path.of("target", "openapi", service + ".json");
        try {
            Files.createDirectories(out.getParent());
            Files.writeString(out, mapper.writeValueAsString(doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return doc;
    }

    /**
     * Fails unless the info has a license and a contact, there is a server, and every operation has a summary, every
     * JSON request body and JSON answer an example, and no answer is described as {@code *}{@code /*} (the services
     * answer JSON).
     */
    public static void assertReadable(JsonNode doc) {
        List<String> gaps = new ArrayList<>();
        if (text(doc.path("info").path("license").path("name")).isBlank()) {
            gaps.add("info.license has no name");
        }
        if (!doc.path("info").path("contact").isObject()) {
            gaps.add("info.contact is missing");
        }
        if (doc.path("servers").isEmpty()) {
            gaps.add("servers is empty");
        }
        for (var path : doc.path("paths").properties()) {
            for (var method : path.getValue().properties()) {
                String endpoint = method.getKey().toUpperCase() + " " + path.getKey();
                JsonNode op = method.getValue();
                if (text(op.path("summary")).isBlank()) {
                    gaps.add(endpoint + ": no summary");
                }
                JsonNode json = op.path("requestBody").path("content").path("application/json");
                if (!json.isMissingNode() && !hasExample(json)) {
                    gaps.add(endpoint + ": JSON request body without an example");
                }
                for (var answer : op.path("responses").properties()) {
                    for (var media : answer.getValue().path("content").properties()) {
                        if (media.getKey().equals("*/*")) {
                            gaps.add(endpoint + " " + answer.getKey() + ": described as */*");
                        }
                        if (media.getKey().contains("json") && !hasExample(media.getValue())) {
                            gaps.add(endpoint + " " + answer.getKey() + " " + media.getKey() + ": no example");
                        }
                    }
                }
            }
        }
        if (!gaps.isEmpty()) {
            throw new AssertionError("the OpenAPI document has gaps:\n  " + String.join("\n  ", gaps));
        }
    }

    /** @return the operation for "METHOD /path", matching path variables by position whatever their names; null if none */
    public static JsonNode operation(JsonNode doc, String endpoint) {
        String method = endpoint.substring(0, endpoint.indexOf(' ')).toLowerCase();
        String path = endpoint.substring(endpoint.indexOf(' ') + 1).replaceAll("\\{[^}]+}", "{}");
        for (var e : doc.path("paths").properties()) {
            if (e.getKey().replaceAll("\\{[^}]+}", "{}").equals(path) && e.getValue().has(method)) {
                return e.getValue().get(method);
            }
        }
        return null;
    }

    private static String text(JsonNode node) {
        return node.isString() ? node.stringValue() : "";
    }

    private static boolean hasExample(JsonNode media) {
        return media.has("example") || !media.path("examples").isEmpty();
    }
}
