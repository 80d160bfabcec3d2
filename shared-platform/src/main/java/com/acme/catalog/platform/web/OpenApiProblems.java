package com.acme.catalog.platform.web;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import com.acme.catalog.contracts.ProblemCode;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.util.AntPathMatcher;

/**
 * The problem responses of every operation in the OpenAPI description (both services): each error status an
 * operation can answer, as {@code application/problem+json} with the shared {@code Problem} schema and the stable
 * codes it may carry ({@code x-problem-codes}, also in the description). Every operation: 400 {@code INVALID_ID} /
 * {@code INVALID_BODY}, 500 {@code INTERNAL} and 503 {@code DATABASE_UNAVAILABLE}; a protected one 401 and 403
 * (and the bearer scheme); one with a path variable 404; the codes the contract names for particular endpoints
 * from {@link #RULES}. Each problem response has an example body with its first code. An operation that may answer
 * {@code IDEMPOTENCY_KEY_REUSED} takes the {@code Idempotency-Key} header.
 */
public final class OpenApiProblems implements OpenApiCustomizer {

    /** (method, path regex over the OpenAPI path with variables as {x}) → codes that endpoint may answer. */
    record Rule(String method, Pattern path, List<ProblemCode> codes) {
        static Rule of(String method, String path, ProblemCode... codes) {
            return new Rule(method, Pattern.compile(path.replaceAll("\\{[^}]+}", "[^/]+")), List.of(codes));
        }
    }

    static final List<Rule> RULES = List.of(
            // resolver writes
            Rule.of("PUT", "/v1/streams/{t}/{c}/(items|mappings|policies|releases)/{id}", ProblemCode.REVISION_CONFLICT,
                    ProblemCode.PAYLOAD_TOO_LARGE, ProblemCode.MAINTENANCE, ProblemCode.STREAM_FENCED,
                    ProblemCode.HISTORY_ROLLED_BACK, ProblemCode.CONTROL_STORE_UNAVAILABLE),
            Rule.of("DELETE", "/v1/streams/{t}/{c}/items/{id}", ProblemCode.REVISION_CONFLICT, ProblemCode.MAINTENANCE,
                    ProblemCode.STREAM_FENCED, ProblemCode.HISTORY_ROLLED_BACK, ProblemCode.CONTROL_STORE_UNAVAILABLE),
            Rule.of("POST", "/v1/streams/{t}/{c}/transactions", ProblemCode.REVISION_CONFLICT,
                    ProblemCode.PAYLOAD_TOO_LARGE, ProblemCode.MAINTENANCE, ProblemCode.STREAM_FENCED,
                    ProblemCode.HISTORY_ROLLED_BACK, ProblemCode.CONTROL_STORE_UNAVAILABLE),
            Rule.of("POST", "/v1/streams/{t}/{c}/review-cases", ProblemCode.EVIDENCE_EXPIRED),
            Rule.of("POST", "/v1/streams/{t}/{c}/review-cases/{id}/decisions", ProblemCode.CASE_DECIDED,
                    ProblemCode.REVISION_CONFLICT, ProblemCode.MAINTENANCE, ProblemCode.HISTORY_ROLLED_BACK),
            // every write of a stream takes an Idempotency-Key (docs/writes.md)
            keyedWrite("PUT"), keyedWrite("DELETE"), keyedWrite("POST"),
            Rule.of("POST", "/v1/streams/{t}/{c}/extraction-runs", ProblemCode.EVIDENCE_EXPIRED),
            Rule.of("POST", "/v1/tenants/{t}/evidence", ProblemCode.PAYLOAD_TOO_LARGE),
            Rule.of("POST", "/v1/streams/{t}/{c}/bootstrap-import", ProblemCode.DESTINATION_NOT_EMPTY,
                    ProblemCode.IMPORT_IN_PROGRESS, ProblemCode.PAYLOAD_TOO_LARGE, ProblemCode.MAINTENANCE,
                    ProblemCode.STREAM_MOVING, ProblemCode.STREAM_MOVED, ProblemCode.STREAM_HAS_DECISIONS,
                    ProblemCode.ROTATION_RUNNING, ProblemCode.PRODUCT_NOT_READY),
            Rule.of("POST", "/v1/streams/{t}/{c}/move", ProblemCode.IMPORT_IN_PROGRESS, ProblemCode.STREAM_MOVING,
                    ProblemCode.STREAM_MOVED),
            Rule.of("POST", "/v1/streams/{t}/{c}/move/complete", ProblemCode.STREAM_MOVING, ProblemCode.STREAM_MOVED),
            Rule.of("DELETE", "/v1/streams/{t}/{c}/move", ProblemCode.STREAM_MOVED),
            // writes a stream's import fence or move refuses (docs/bootstrap-import.md, docs/runbooks/move-stream.md)
            blockedWrite("PUT"), blockedWrite("DELETE"), blockedWrite("POST"),
            // retention
            Rule.of("POST", "/v1/retention/consumers", ProblemCode.DELIVERY_URL_NOT_ALLOWED, ProblemCode.EPOCH_MISMATCH),
            Rule.of("PUT", "/v1/retention/consumers/{id}/progress", ProblemCode.EPOCH_MISMATCH,
                    ProblemCode.POSITION_AHEAD, ProblemCode.HISTORY_ROLLED_BACK),
            Rule.of("POST", "/v1/retention/leases", ProblemCode.EPOCH_MISMATCH),
            Rule.of("POST", "/v1/retention/leases/{id}/renew", ProblemCode.LEASE_EXPIRED),
            // exports
            Rule.of("POST", "/v1/exports", ProblemCode.LEASE_EXPIRED, ProblemCode.EPOCH_MISMATCH),
            Rule.of("GET", "/v1/exports/{id}/manifest", ProblemCode.EXPORT_NOT_READY),
            Rule.of("GET", "/v1/exports/events", ProblemCode.CURSOR_STALE, ProblemCode.LEASE_EXPIRED,
                    ProblemCode.EPOCH_CHANGED, ProblemCode.POSITION_AHEAD),
            // epochs, maintenance
            Rule.of("POST", "/v1/epochs/{t}/{c}/rotate", ProblemCode.MAINTENANCE_REQUIRED,
                    ProblemCode.EPOCH_MISMATCH, ProblemCode.ROTATION_RUNNING, ProblemCode.CONTROL_STORE_UNAVAILABLE),
            Rule.of("POST", "/v1/streams/{t}/{c}/reset", ProblemCode.MAINTENANCE_REQUIRED, ProblemCode.EPOCH_MISMATCH,
                    ProblemCode.ROTATION_RUNNING, ProblemCode.STREAM_HAS_DECISIONS,
                    ProblemCode.CONTROL_STORE_UNAVAILABLE),
            Rule.of("POST", "/v1/epochs/rotations", ProblemCode.MAINTENANCE_REQUIRED, ProblemCode.ROTATION_RUNNING,
                    ProblemCode.INVALID_IDEMPOTENCY_KEY, ProblemCode.IDEMPOTENCY_KEY_REUSED,
                    ProblemCode.CONTROL_STORE_UNAVAILABLE),
            // product
            Rule.of("POST", "/v1/inbox/events", ProblemCode.EPOCH_MISMATCH, ProblemCode.CHAIN_BROKEN,
                    ProblemCode.INVALID_EVENT, ProblemCode.PAYLOAD_TOO_LARGE, ProblemCode.MAINTENANCE,
                    ProblemCode.PROJECTION_VERSION_NEWER),
            Rule.of("GET", "/v1/catalog/{t}/{c}/.*", ProblemCode.MAINTENANCE),
            Rule.of("POST", "/v1/rebuilds", ProblemCode.WORKER_LEASE_HELD, ProblemCode.MAINTENANCE,
                    ProblemCode.PROJECTION_VERSION_OLDER));

    /** The {@code detail} of the problem examples: each real one says what was wrong in a sentence. */
    static final String EXAMPLE_DETAIL = "a sentence saying what was wrong with the request and what to do";

    /** The name of the {@code Idempotency-Key} header parameter among the components. */
    static final String IDEMPOTENCY_KEY = "IdempotencyKey";
    private static final String IDEMPOTENCY_KEY_REF = "#/components/parameters/" + IDEMPOTENCY_KEY;

    private final List<String> publicPatterns;
    private final AntPathMatcher matcher = new AntPathMatcher();

    public OpenApiProblems(List<String> publicPatterns) {
        this.publicPatterns = List.copyOf(publicPatterns);
    }

    @Override
    public void customise(OpenAPI openApi) {
        Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
        openApi.setComponents(components);
        components.addSchemas("Problem", problemSchema());
        components.addSecuritySchemes("bearer", new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                .description("a token of SECURITY_TOKENS (roles operator, writer, relay, consumer)"));
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().forEach((path, item) -> item.readOperationsMap()
                .forEach((method, op) -> customise(path, method, op)));
        boolean keyed = openApi.getPaths().values().stream().flatMap(item -> item.readOperations().stream())
                .anyMatch(OpenApiProblems::takesIdempotencyKey);
        if (keyed) {
            components.addParameters(IDEMPOTENCY_KEY, idempotencyKey());
        }
    }

    private void customise(String path, PathItem.HttpMethod method, Operation op) {
        Map<Integer, List<ProblemCode>> byStatus = new TreeMap<>();
        add(byStatus, ProblemCode.INVALID_ID, ProblemCode.INVALID_BODY, ProblemCode.INTERNAL,
                ProblemCode.DATABASE_UNAVAILABLE);
        boolean isPublic = publicPatterns.stream().anyMatch(p -> matcher.match(p, path));
        if (isPublic) {
            op.setSecurity(List.of());
        } else {
            add(byStatus, ProblemCode.UNAUTHENTICATED, ProblemCode.FORBIDDEN);
            op.setSecurity(List.of(new SecurityRequirement().addList("bearer")));
        }
        if (path.contains("{")) {
            add(byStatus, ProblemCode.NOT_FOUND);
        }
        for (Rule r : RULES) {
            if (r.method().equals(method.name()) && r.path().matcher(path).matches()) {
                add(byStatus, r.codes().toArray(ProblemCode[]::new));
            }
        }
        // what can answer IDEMPOTENCY_KEY_REUSED takes the key
        if (byStatus.getOrDefault(ProblemCode.IDEMPOTENCY_KEY_REUSED.status(), List.of())
                .contains(ProblemCode.IDEMPOTENCY_KEY_REUSED) && !takesIdempotencyKey(op)) {
            op.addParametersItem(new Parameter().$ref(IDEMPOTENCY_KEY_REF));
        }
        ApiResponses responses = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        op.setResponses(responses);
        byStatus.forEach((status, codes) -> {
            List<String> names = codes.stream().map(Enum::name).distinct().toList();
            ApiResponse r = new ApiResponse()
                    .description("Problem (application/problem+json), code " + String.join(" or ", names))
                    .content(new Content().addMediaType("application/problem+json",
                            new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"))
                                    .example(Problems.body(codes.get(0), EXAMPLE_DETAIL, null))));
            r.addExtension("x-problem-codes", names);
            responses.addApiResponse(String.valueOf(status), r);
        });
    }

    /** The codes of an {@code Idempotency-Key} on the resolver's stream writes of {@code method}. */
    private static Rule keyedWrite(String method) {
        return Rule.of(method, "/v1/streams/{t}/{c}/(items|mappings|policies|releases|transactions|review-cases)"
                + "(/{id})?(/decisions)?", ProblemCode.INVALID_IDEMPOTENCY_KEY, ProblemCode.IDEMPOTENCY_KEY_REUSED,
                ProblemCode.OUTCOME_UNKNOWN);
    }

    /** The codes of a stream write of {@code method} that an import fence or a move refuses. */
    private static Rule blockedWrite(String method) {
        return Rule.of(method, "/v1/streams/{t}/{c}/(items|mappings|policies|releases|transactions|review-cases/{id}"
                + "/decisions)(/{id})?", ProblemCode.IMPORT_IN_PROGRESS, ProblemCode.STREAM_MOVING,
                ProblemCode.STREAM_MOVED);
    }

    private static boolean takesIdempotencyKey(Operation op) {
        return op.getParameters() != null
                && op.getParameters().stream().anyMatch(p -> IDEMPOTENCY_KEY_REF.equals(p.get$ref()));
    }

    private static Parameter idempotencyKey() {
        StringSchema key = new StringSchema();
        key.minLength(1).maxLength(128).pattern("^[\\x20-\\x7E]+$");
        return new Parameter().in("header").name("Idempotency-Key").required(false).schema(key)
                .example("order-4711-attempt")
                .description("1 to 128 printable ASCII characters: a retry with the same key and body, by the same "
                        + "token identity on the same stream within the key window (24 h by default), answers the "
                        + "original result and writes nothing; the same key with another body is 422 "
                        + "IDEMPOTENCY_KEY_REUSED (docs/writes.md)");
    }

    private static void add(Map<Integer, List<ProblemCode>> byStatus, ProblemCode... codes) {
        for (ProblemCode c : codes) {
            byStatus.computeIfAbsent(c.status(), s -> new ArrayList<>()).add(c);
        }
    }

    private static Schema<?> problemSchema() {
        Map<String, Schema> props = new LinkedHashMap<>();
        props.put("type", new StringSchema().description("a URI naming the problem type"));
        props.put("title", new StringSchema());
        props.put("status", new IntegerSchema());
        props.put("detail", new StringSchema());
        props.put("instance", new StringSchema());
        StringSchema code = new StringSchema();
        code.setEnum(Arrays.stream(ProblemCode.values()).map(Enum::name).toList());
        props.put("code", code.description("stable code (ProblemCode; docs/design.md §11)"));
        ObjectSchema s = new ObjectSchema();
        s.setProperties(props);
        s.setRequired(List.of("status", "code"));
        return s.description("RFC 9457 problem details with a stable code");
    }
}
