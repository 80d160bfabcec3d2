package com.acme.catalog.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.Paths;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.junit.jupiter.api.Test;

/** {@link OpenApiDocument}: a service's info, servers and examples applied to the description springdoc built. */
class OpenApiDocumentTest {

    @Test
    void infoServersAndExamplesAreApplied() {
        OpenApiDocument document = new OpenApiDocument(Map.of(
                "info", Map.of("title", "Resolver", "version", "v1", "license", Map.of("name", "Proprietary",
                        "identifier", "LicenseRef-Test"), "contact", Map.of("name", "Team")),
                "servers", List.of(Map.of("url", "/", "description", "this service")),
                "examples", Map.of("PUT /v1/things/{id}", Map.of(
                        "request", Map.of("name", "a"),
                        "200", Map.of("revision", 1)))));
        OpenAPI base = document.base();
        assertThat(base.getInfo().getLicense().getIdentifier()).isEqualTo("LicenseRef-Test");
        assertThat(base.getInfo().getContact().getName()).isEqualTo("Team");
        assertThat(base.getServers()).singleElement().satisfies(s -> assertThat(s.getUrl()).isEqualTo("/"));

        OpenAPI api = api();
        document.customise(api);
        Operation put = api.getPaths().get("/v1/things/{id}").getPut();
        assertThat(put.getRequestBody().getContent().get("application/json").getExample())
                .isEqualTo(Map.of("name", "a"));
        Content answer = put.getResponses().get("200").getContent();
        assertThat(answer).as("*/* is described as JSON").containsOnlyKeys("application/json");
        assertThat(answer.get("application/json").getExample()).isEqualTo(Map.of("revision", 1));
        assertThat(answer.get("application/json").getSchema().get$ref()).isEqualTo("#/components/schemas/Answer");
        assertThat(api.getComponents().getSchemas().get("JsonNode").getProperties()).as("any JSON value").isNull();
    }

    @Test
    void anExampleOfAnOperationOrStatusTheDescriptionLacksIsAnError() {
        OpenApiDocument unknownPath = new OpenApiDocument(Map.of("examples",
                Map.of("PUT /v1/others/{id}", Map.of("200", Map.of()))));
        assertThatThrownBy(() -> unknownPath.customise(api())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no operation PUT /v1/others/{id}");
        OpenApiDocument unknownStatus = new OpenApiDocument(Map.of("examples",
                Map.of("PUT /v1/things/{id}", Map.of("201", Map.of()))));
        assertThatThrownBy(() -> unknownStatus.customise(api())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no 201 body");
    }

    @Test
    void aServiceWithoutTheResourceKeepsSpringdocsDefaults() {
        OpenApiDocument none = OpenApiDocument.load(new ClassLoader(null) {
        });
        assertThat(none.base().getInfo()).isNull();
        assertThat(none.base().getServers()).isNull();
    }

    /** What springdoc builds for {@code PUT /v1/things/{id}} taking and answering JSON, before the customizer. */
    private static OpenAPI api() {
        Schema<?> jsonNodeAsBean = new ObjectSchema().addProperty("nodeType", new Schema<>().type("string"));
        Operation put = new Operation()
                .requestBody(new RequestBody().content(new Content().addMediaType("application/json",
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/JsonNode")))))
                .responses(new ApiResponses().addApiResponse("200", new ApiResponse().description("OK")
                        .content(new Content().addMediaType("*/*",
                                new MediaType().schema(new Schema<>().$ref("#/components/schemas/Answer"))))));
        return new OpenAPI().paths(new Paths().addPathItem("/v1/things/{id}", new PathItem().put(put)))
                .components(new Components().addSchemas("JsonNode", jsonNodeAsBean));
    }
}
