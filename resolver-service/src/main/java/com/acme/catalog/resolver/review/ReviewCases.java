package com.acme.catalog.resolver.review;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.review.CaseStatus;
import com.acme.catalog.contracts.review.DecisionView;
import com.acme.catalog.contracts.review.ReviewCaseCreated;
import com.acme.catalog.contracts.review.ReviewCaseList;
import com.acme.catalog.contracts.review.ReviewCaseRequest;
import com.acme.catalog.contracts.review.ReviewCaseView;
import com.acme.catalog.resolver.evidence.ArtifactReferences;
import com.acme.catalog.resolver.idempotency.CommitOutcome;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;
import com.acme.catalog.resolver.idempotency.KeyClaims;
import com.acme.catalog.resolver.stream.ChangeParser;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Opens review cases and reads them. A case's changes are validated exactly as a transaction's before anything is
 * written; its claims must be the stream's, and their artifacts are share-locked while the case is inserted, so
 * evidence retention cannot expire them meanwhile. No cursor lock: a case changes no exported state.
 */
@Service
class ReviewCases {

    /** The idempotency keys of case openings. */
    private static final String KEY_SCOPE = "review-case";

    private final TransactionTemplate tx;
    private final ReviewCaseRepository cases;
    private final ArtifactReferences references;
    private final ObjectMapper json;
    private final KeyClaims claims;

    ReviewCases(TransactionTemplate tx, ReviewCaseRepository cases, ArtifactReferences references,
            ObjectMapper json, KeyClaims claims) {
        this.tx = tx;
        this.cases = cases;
        this.references = references;
        this.json = json;
        this.claims = claims;
    }

    /**
     * Opens a case. With an idempotency key, the key is claimed first in the same transaction: a retry of the same
     * request answers the case the key opened and opens none.
     *
     * @param key null when the request has none
     */
    ReviewCaseCreated open(StreamId stream, ReviewCaseRequest request, String createdBy, IdempotencyKey key) {
        ObjectNode transaction = json.createObjectNode();
        transaction.putArray("changes").addAll(request.changes());
        ChangeParser.transaction(transaction); // 400 for anything a transaction would refuse
        String changes = json.writeValueAsString(transaction.get("changes"));
        UUID caseId = UuidV7.next();
        return CommitOutcome.execute(tx, "a review case of stream " + stream, status -> {
            if (key != null) {
                Optional<String> earlier = claims.claim(stream, KEY_SCOPE, key);
                if (earlier.isPresent()) {
                    return json.readValue(earlier.get(), ReviewCaseCreated.class);
                }
            }
            references.lock(stream.tenant(), references.artifactsOfClaims(stream, request.claimIds()).values());
            cases.insert(caseId, stream, changes, request.claimIds(), createdBy);
            ReviewCaseCreated created = new ReviewCaseCreated(caseId, CaseStatus.OPEN);
            if (key != null) {
                claims.answer(stream, KEY_SCOPE, key, json.writeValueAsString(created));
            }
            return created;
        });
    }

    ReviewCaseView read(StreamId stream, UUID caseId) {
        return cases.find(stream, caseId).map(this::view).orElseThrow(() -> new ApiException(ProblemCode.NOT_FOUND,
                "stream " + stream + " has no review case " + caseId));
    }

    ReviewCaseList list(StreamId stream, CaseStatus status, UUID after, int limit) {
        List<ReviewCase> page = cases.list(stream, status, after, limit + 1);
        List<ReviewCaseView> views = page.stream().limit(limit).map(this::view).toList();
        UUID next = page.size() > limit ? views.get(views.size() - 1).caseId() : null;
        return new ReviewCaseList(views, next);
    }

    private ReviewCaseView view(ReviewCase c) {
        List<JsonNode> changes = List.copyOf(json.readTree(c.changesJson()).values());
        ReviewCase.Decision d = c.decision();
        DecisionView decision = d == null ? null : new DecisionView(d.decisionId(), d.verdict(), d.reviewer(),
                d.reason(), d.decidedBy(), d.decidedAt(), d.epoch(), d.firstPosition(), d.lastPosition(),
                d.transactionId(), d.artifactIds());
        return new ReviewCaseView(c.caseId(), c.stream().tenant(), c.stream().catalog(),
                d == null ? CaseStatus.OPEN : CaseStatus.DECIDED, c.claimIds(), changes, c.createdBy(),
                c.createdAt(), decision);
    }
}
