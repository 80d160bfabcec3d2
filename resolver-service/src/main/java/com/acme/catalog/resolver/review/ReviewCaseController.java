package com.acme.catalog.resolver.review;

import java.net.URI;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidIds;
import com.acme.catalog.contracts.review.CaseStatus;
import com.acme.catalog.contracts.review.DecisionReceipt;
import com.acme.catalog.contracts.review.DecisionRequest;
import com.acme.catalog.contracts.review.ReviewCaseCreated;
import com.acme.catalog.contracts.review.ReviewCaseList;
import com.acme.catalog.contracts.review.ReviewCaseRequest;
import com.acme.catalog.contracts.review.ReviewCaseView;
import com.acme.catalog.platform.web.Access;
import com.acme.catalog.platform.web.Caller;
import com.acme.catalog.platform.web.Role;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.ObjectMapper;

/**
 * Review cases of a stream (writers open them; writers and operators read them) and their decisions (writers or
 * operators of the tenant).
 */
@Tag(name = "Review", description = "Review cases of a stream and their immutable decisions")
@RestController
@RequestMapping("/v1/streams/{tenant}/{catalog}/review-cases")
class ReviewCaseController {

    private static final int DEFAULT_LIMIT = 100;
    private static final int MAX_LIMIT = 1000;

    private final ReviewCases cases;
    private final DecisionRecorder decisions;
    private final ObjectMapper json;

    ReviewCaseController(ReviewCases cases, DecisionRecorder decisions, ObjectMapper json) {
        this.cases = cases;
        this.decisions = decisions;
        this.json = json;
    }

    @Operation(operationId = "openReviewCase", summary = "Open a review case",
            description = "Claims and the changes they propose, applied only if a reviewer accepts. Role writer.")
    @ApiResponse(responseCode = "201", description = "Opened")
    @PostMapping
    ResponseEntity<ReviewCaseCreated> open(@PathVariable String tenant, @PathVariable String catalog,
            @RequestBody ReviewCaseRequest body, HttpServletRequest request) {
        StreamId stream = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.WRITER);
        IdempotencyKey key = IdempotencyKey.of(request, caller.name(), () -> json.writeValueAsBytes(body));
        ReviewCaseCreated created = cases.open(stream, body, caller.name(), key);
        return ResponseEntity.created(URI.create(request.getRequestURI() + "/" + created.caseId())).body(created);
    }

    @Operation(operationId = "readReviewCase", summary = "Read a review case",
            description = "Roles writer and operator of the tenant.")
    @GetMapping("/{caseId}")
    ReviewCaseView read(@PathVariable String tenant, @PathVariable String catalog, @PathVariable String caseId) {
        StreamId stream = new StreamId(tenant, catalog);
        Access.require(tenant, Role.WRITER, Role.OPERATOR);
        return cases.read(stream, UuidIds.parse("caseId", caseId));
    }

    /** Cases in creation order, {@code status} OPEN or DECIDED (absent: both), paged with {@code after}. */
    @Operation(operationId = "listReviewCases", summary = "List review cases",
            description = "In creation order, status OPEN or DECIDED (absent: both), paged with after.")
    @GetMapping
    ReviewCaseList list(@PathVariable String tenant, @PathVariable String catalog,
            @RequestParam(required = false) String status, @RequestParam(required = false) String after,
            @RequestParam(required = false) Integer limit) {
        StreamId stream = new StreamId(tenant, catalog);
        Access.require(tenant, Role.WRITER, Role.OPERATOR);
        CaseStatus filter = status == null ? null : parseStatus(status);
        int n = limit == null ? DEFAULT_LIMIT : limit;
        if (n < 1 || n > MAX_LIMIT) {
            throw new ApiException(ProblemCode.INVALID_BODY, "limit must be 1.." + MAX_LIMIT);
        }
        return cases.list(stream, filter, after == null ? null : UuidIds.parse("after", after), n);
    }

    @Operation(operationId = "decideReviewCase", summary = "Decide a review case",
            description = "ACCEPT applies the case's changes as one transaction; REJECT records the decision only. A "
                    + "case has one decision, never changed.")
    @PostMapping("/{caseId}/decisions")
    @ResponseStatus(HttpStatus.CREATED)
    DecisionReceipt decide(@PathVariable String tenant, @PathVariable String catalog, @PathVariable String caseId,
            @RequestBody DecisionRequest body, HttpServletRequest request) {
        StreamId stream = new StreamId(tenant, catalog);
        Caller caller = Access.require(tenant, Role.OPERATOR, Role.WRITER);
        IdempotencyKey key = IdempotencyKey.of(request, caller.name(), () -> json.writeValueAsBytes(body));
        return decisions.decide(stream, UuidIds.parse("caseId", caseId), body, caller.name(), key);
    }

    private static CaseStatus parseStatus(String status) {
        try {
            return CaseStatus.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw new ApiException(ProblemCode.INVALID_BODY, "status must be OPEN or DECIDED");
        }
    }
}
