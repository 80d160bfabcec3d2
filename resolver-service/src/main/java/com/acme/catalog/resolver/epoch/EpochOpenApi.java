package com.acme.catalog.resolver.epoch;

import java.util.List;
import java.util.Map;

import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.platform.web.Problems;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * What the epoch endpoints' OpenAPI description needs besides their annotations: the fields written as JSON
 * {@code null} marked nullable (OpenAPI 3.1: {@code "null"} among the types), and the resolver's own refusal of
 * {@code POST /v1/admin/maintenance} while a fleet rotation runs (409 {@code ROTATION_RUNNING}; the endpoint is
 * shared with the product, which never answers it).
 */
@Component
class EpochOpenApi implements OpenApiCustomizer {

    /** schema → its properties that may be {@code null}. */
    private static final Map<String, List<String>> NULLABLE = Map.of(
            "EpochIssue", List.of("startsFrom"),
            "StartsFrom", List.of("epoch"));

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getComponents() != null && openApi.getComponents().getSchemas() != null) {
            Map<String, Schema> schemas = openApi.getComponents().getSchemas();
            NULLABLE.forEach((name, fields) -> {
                Schema<?> s = schemas.get(name);
                if (s != null && s.getProperties() != null) {
                    fields.forEach(f -> nullable(s, f));
                }
            });
        }
        PathItem maintenance = openApi.getPaths() == null ? null : openApi.getPaths().get("/v1/admin/maintenance");
        if (maintenance != null && maintenance.getPost() != null) {
            rotationRunning(maintenance.getPost());
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void nullable(Schema<?> owner, String field) {
        Map<String, Schema> props = (Map) owner.getProperties();
        Schema p = props.get(field);
        if (p == null) {
            return;
        }
        if (p.get$ref() != null) {
            Schema none = new Schema<>();
            none.addType("null");
            props.put(field, new Schema<>().anyOf(List.of(new Schema<>().$ref(p.get$ref()), none))
                    .description(p.getDescription()));
        } else {
            p.addType("null");
        }
    }

    private static void rotationRunning(Operation op) {
        ApiResponse r = new ApiResponse()
                .description("Problem (application/problem+json), code ROTATION_RUNNING (resolver: maintenance stays "
                        + "on while a fleet rotation runs, unless force is true)")
                .content(new Content().addMediaType("application/problem+json", new MediaType()
                        .schema(new Schema<>().$ref("#/components/schemas/Problem"))
                        .example(Problems.body(ProblemCode.ROTATION_RUNNING, "fleet rotation 0193… is running: "
                                + "maintenance stays on until it ended", null))));
        r.addExtension("x-problem-codes", List.of(ProblemCode.ROTATION_RUNNING.name()));
        op.getResponses().addApiResponse("409", r);
    }
}
