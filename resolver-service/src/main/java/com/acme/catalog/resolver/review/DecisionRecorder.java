package com.acme.catalog.resolver.review;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import com.acme.catalog.contracts.ApiException;
import com.acme.catalog.contracts.ProblemCode;
import com.acme.catalog.contracts.StreamId;
import com.acme.catalog.contracts.UuidV7;
import com.acme.catalog.contracts.review.DecisionReceipt;
import com.acme.catalog.contracts.review.DecisionRequest;
import com.acme.catalog.contracts.review.Verdict;
import com.acme.catalog.resolver.evidence.ArtifactReferences;
import com.acme.catalog.resolver.idempotency.CommitOutcome;
import com.acme.catalog.resolver.idempotency.IdempotencyKey;
import com.acme.catalog.resolver.idempotency.KeyClaims;
import com.acme.catalog.resolver.stream.Change;
import com.acme.catalog.resolver.stream.ChangeParser;
import com.acme.catalog.resolver.stream.CursorRepository;
import com.acme.catalog.resolver.stream.StreamWriter;
import com.acme.catalog.resolver.stream.WriteResult;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Records the one decision of a review case, all or nothing, in one transaction:
 * <ol>
 *   <li>with an {@code Idempotency-Key}, claim the key ({@link KeyClaims}): a key a committed decision holds answers
 *       that decision's receipt and nothing more happens;
 *   <li>lock the case row (deciders of one case are serialized) and refuse a decided case ({@code CASE_DECIDED});
 *   <li>share-lock every artifact the decision cites (its claims' and the reviewer's further evidence), so evidence
 *       retention cannot expire them before this commits;
 *   <li>an ACCEPT writes its logical transaction through the live write path, joining this transaction: the cursor
 *       lock, a {@code DecisionRecorded} event, then the case's changes, each with its revision and event (a
 *       revision conflict or any other refusal rolls everything back, the decision included);
 *   <li>insert the decision (with the epoch and positions the write path gave it), its citations and, for an
 *       ACCEPT, one row per revision it made citing it; store the receipt with the key; commit (a failed commit is
 *       503 {@code OUTCOME_UNKNOWN}).
 * </ol>
 * A REJECT takes no cursor lock and writes nothing to accepted state.
 */
@Service
class DecisionRecorder {

    /** The idempotency keys of decisions. */
    private static final String KEY_SCOPE = "decision";

    private final TransactionTemplate tx;
    private final ReviewCaseRepository cases;
    private final DecisionRepository decisions;
    private final ArtifactReferences references;
    private final StreamWriter writer;
    private final ObjectMapper json;
    private final KeyClaims claims;
    private final CursorRepository cursors;

    DecisionRecorder(TransactionTemplate tx, ReviewCaseRepository cases, DecisionRepository decisions,
            ArtifactReferences references, StreamWriter writer, ObjectMapper json, KeyClaims claims,
            CursorRepository cursors) {
        this.cursors = cursors;
        this.tx = tx;
        this.cases = cases;
        this.decisions = decisions;
        this.references = references;
        this.writer = writer;
        this.json = json;
        this.claims = claims;
    }

    /**
     * Records the decision. With an idempotency key, the key is claimed first, in the same transaction: a retry of
     * the same request answers the receipt the key got and decides nothing.
     *
     * @param key null when the request has none
     */
    DecisionReceipt decide(StreamId stream, UUID caseId, DecisionRequest request, String decidedBy,
            IdempotencyKey key) {
        UUID decisionId = UuidV7.next();
        return CommitOutcome.execute(tx, "a decision of review case " + caseId, status -> {
            if (key != null) {
                Optional<String> earlier = claims.claim(stream, KEY_SCOPE, key);
                if (earlier.isPresent()) {
                    return json.readValue(earlier.get(), DecisionReceipt.class);
                }
            }
            DecisionReceipt receipt = record(stream, caseId, decisionId, request, decidedBy);
            if (key != null) {
                claims.answer(stream, KEY_SCOPE, key, json.writeValueAsString(receipt));
            }
            return receipt;
        });
    }

    private DecisionReceipt record(StreamId stream, UUID caseId, UUID decisionId, DecisionRequest request,
            String decidedBy) {
        if (!cases.lock(stream, caseId)) {
            throw new ApiException(ProblemCode.NOT_FOUND, "stream " + stream + " has no review case " + caseId);
        }
        if (cases.decided(caseId)) {
            throw new ApiException(ProblemCode.CASE_DECIDED, "review case " + caseId + " is already decided");
        }
        ReviewCase c = cases.find(stream, caseId).orElseThrow();
        Set<UUID> cited = new TreeSet<>(references.artifactsOfClaims(stream, c.claimIds()).values());
        cited.addAll(request.evidence());
        references.lock(stream.tenant(), cited);
        if (request.decision() != Verdict.ACCEPT) {
            // an acceptance is refused by its write's cursor lock; a rejection writes no event, so it asks
            cursors.refuseIfBlocked(stream);
        }
        WriteResult applied = request.decision() == Verdict.ACCEPT
                ? writer.write(stream, changes(decisionId, c, request, cited))
                : null;
        decisions.insert(decisionId, caseId, stream, request, applied, decidedBy);
        decisions.citeArtifacts(decisionId, cited);
        if (applied != null) {
            decisions.citeRevisions(decisionId, stream, applied);
            return new DecisionReceipt(decisionId, request.decision(), applied.epoch(), applied.firstPosition(),
                    applied.lastPosition());
        }
        return new DecisionReceipt(decisionId, request.decision(), null, null, null);
    }

    /** The decision's event first, then the case's changes, as one logical transaction. */
    private List<Change> changes(UUID decisionId, ReviewCase c, DecisionRequest request, Set<UUID> cited) {
        ObjectNode payload = json.createObjectNode();
        payload.put("decisionId", decisionId.toString());
        payload.put("caseId", c.caseId().toString());
        payload.put("decision", request.decision().name());
        payload.put("reviewer", request.reviewer());
        payload.put("reason", request.reason());
        var claims = payload.putArray("claimIds");
        c.claimIds().forEach(id -> claims.add(id.toString()));
        var artifacts = payload.putArray("artifactIds");
        cited.forEach(a -> artifacts.add(a.toString()));
        ObjectNode transaction = json.createObjectNode();
        transaction.set("changes", json.readTree(c.changesJson()));
        List<Change> out = new ArrayList<>();
        out.add(new Change.RecordDecision(decisionId.toString(), payload));
        out.addAll(ChangeParser.transaction(transaction));
        return out;
    }
}
