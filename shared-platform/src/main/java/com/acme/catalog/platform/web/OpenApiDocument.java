package com.acme.catalog.platform.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Contact;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.servers.Server;
import org.springdoc.core.customizers.OpenApiCustomizer;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a service's OpenAPI description needs besides the controllers' annotations, from its classpath resource
 * {@value #RESOURCE}: {@code info} (title, version, description, license, contact), {@code servers}, and
 * {@code examples}, keyed {@code "METHOD /path"} as in the description, each holding the example of the
 * operation's request body ({@code "request"}) and of its answers by status ({@code "200"}, {@code "201"}, …).
 * <p>
 * Also: every answer springdoc describes as {@code *&#47;*} is described as {@code application/json} (the services
 * answer JSON only, {@link JsonOnlyMvc}; an endpoint answering other bytes says so in its annotation), and a
 * {@code JsonNode} body is any JSON value, not the Java class's getters.
 * <p>
 * An example for an operation or status the description does not have is an error (the description fails to build
 * and OpenApiIT with it), so a renamed path is noticed rather than silently left without an example.
 */
public final class OpenApiDocument implements OpenApiCustomizer {

    static final String RESOURCE = "openapi/document.json";

    private final Map<String, Object> document;

    OpenApiDocument(Map<String, Object> document) {
        this.document = document;
    }

    /** The service's resource; an empty document where the service has none. */
    static OpenApiDocument load(ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return new OpenApiDocument(Map.of());
            }
            return new OpenApiDocument(JsonMapper.builder().build().readValue(in, new TypeReference<>() {
            }));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /**
     * The description's base: info and servers. Given as springdoc's {@code OpenAPI} bean so that springdoc keeps
     * these servers instead of the URL of whoever asked.
     */
    OpenAPI base() {
        OpenAPI api = new OpenAPI();
        Map<String, Object> info = map(document.get("info"));
        if (!info.isEmpty()) {
            Map<String, Object> license = map(info.get("license"));
            Map<String, Object> contact = map(info.get("contact"));
            api.info(new Info().title(text(info.get("title"))).version(text(info.get("version")))
                    .description(text(info.get("description")))
                    .license(license.isEmpty() ? null : new License().name(text(license.get("name")))
                            .url(text(license.get("url"))).identifier(text(license.get("identifier"))))
                    .contact(contact.isEmpty() ? null : new Contact().name(text(contact.get("name")))
                            .url(text(contact.get("url"))).email(text(contact.get("email")))));
        }
        if (document.get("servers") instanceof List<?> servers) {
            List<Server> list = new ArrayList<>();
            for (Object s : servers) {
                Map<String, Object> server = map(s);
                list.add(new Server().url(text(server.get("url"))).description(text(server.get("description"))));
            }
            api.servers(list);
        }
        return api;
    }

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getComponents() != null && openApi.getComponents().getSchemas() != null
                && openApi.getComponents().getSchemas().containsKey("JsonNode")) {
            openApi.getComponents().getSchemas().put("JsonNode", new Schema<>().description("any JSON value"));
        }
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> {
            if (op.getResponses() != null) {
                op.getResponses().values().forEach(OpenApiDocument::jsonInsteadOfAny);
            }
        }));
        map(document.get("examples")).forEach((endpoint, examples) -> apply(openApi, endpoint, map(examples)));
    }

    private static void jsonInsteadOfAny(ApiResponse response) {
        Content content = response.getContent();
        if (content != null && content.containsKey("*/*")) {
            MediaType any = content.remove("*/*");
            content.addMediaType(org.springframework.http.MediaType.APPLICATION_JSON_VALUE, any);
        }
    }

    private static void apply(OpenAPI openApi, String endpoint, Map<String, Object> examples) {
        Operation op = operation(openApi, endpoint);
        examples.forEach((key, example) -> {
            Content content;
            if (key.equals("request")) {
                content = op.getRequestBody() == null ? null : op.getRequestBody().getContent();
            } else {
                ApiResponse response = op.getResponses() == null ? null : op.getResponses().get(key);
                content = response == null ? null : response.getContent();
            }
            if (content == null || content.isEmpty()) {
                throw new IllegalStateException(RESOURCE + ": " + endpoint + " has no " + key + " body to give "
                        + "an example of");
            }
            content.values().forEach(media -> media.setExample(example));
        });
    }

    private static Operation operation(OpenAPI openApi, String endpoint) {
        int space = endpoint.indexOf(' ');
        PathItem item = openApi.getPaths() == null ? null : openApi.getPaths().get(endpoint.substring(space + 1));
        Operation op = item == null ? null
                : item.readOperationsMap().get(PathItem.HttpMethod.valueOf(endpoint.substring(0, space)));
        if (op == null) {
            throw new IllegalStateException(RESOURCE + ": no operation " + endpoint + " in the description");
        }
        return op;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
